// SPDX-License-Identifier: GPL-2.0
/*
 * Splitting another task's THPs where debugfs is closed (kernel lockdown
 * refuses its writes with EPERM): process_madvise(MADV_PAGEOUT) over one
 * base page of a THP makes the kernel split the THP to page out that part
 * of it. The pages come from thp_chunks_scan(), so base pages that are not
 * part of a THP are left alone.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <unistd.h>

#include "thp_split_pageout.h"
#include "act/read/proc_tasks.h"

long thp_pageout_pages(const struct task_ref *t, const uint64_t *pages, int n)
{
	struct iovec iov[PAGEOUT_BATCH];
	long r;

	if (!pids_are_real() || t->pidfd < 0)
		return -EXDEV;
	if (n > PAGEOUT_BATCH)
		return -E2BIG;
	for (int i = 0; i < n; i++)
		iov[i] = (struct iovec){.iov_base = (void *)(uintptr_t)pages[i], .iov_len = 4096};
	r = syscall(SYS_process_madvise, t->pidfd, iov, (size_t)n, MADV_PAGEOUT, 0);
	return r < 0 ? -errno : 0;
}
