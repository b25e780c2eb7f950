// SPDX-License-Identifier: GPL-2.0
/*
 * Splitting another task's THPs where debugfs is closed (kernel lockdown
 * refuses its writes with EPERM): process_madvise(MADV_PAGEOUT) over one
 * base page of a THP makes the kernel split the THP to page out that part
 * of it. The THP heads come from /proc/PID/pagemap and /proc/kpageflags,
 * so base pages that are not part of a THP are left alone.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <unistd.h>

#include "taod/act_parts.h"
#include "taod/rootfs.h"

#define PM_PFN_MASK	((1ULL << 55) - 1)
#define PM_PRESENT	(1ULL << 63)
#define KPF_THP		22
#define PAGEOUT_IOV_MAX 64

static uint64_t read_u64_at(int fd, uint64_t index)
{
	uint64_t v = 0;

	if (pread(fd, &v, sizeof(v), (off_t)(index * sizeof(v))) != sizeof(v))
		return 0;
	return v;
}

static bool is_thp_at(int pagemap, int kpageflags, uint64_t addr)
{
	uint64_t pm = read_u64_at(pagemap, addr / 4096);

	if (!(pm & PM_PRESENT) || !(pm & PM_PFN_MASK))
		return false;
	return read_u64_at(kpageflags, pm & PM_PFN_MASK) & (1ULL << KPF_THP);
}

/* Opens both files; on error neither stays open. */
static int open_pagemaps(pid_t pid, int *pagemap, int *kpageflags)
{
	char rel[64], pm[PATH_MAX], kf[PATH_MAX];
	int e;

	snprintf(rel, sizeof(rel), "/proc/%d/pagemap", (int)pid);
	if (rootfs_path(pm, sizeof(pm), rel) || rootfs_path(kf, sizeof(kf), "/proc/kpageflags"))
		return -ENAMETOOLONG;
	*pagemap = open(pm, O_RDONLY | O_CLOEXEC);
	if (*pagemap < 0)
		return -errno;
	*kpageflags = open(kf, O_RDONLY | O_CLOEXEC);
	if (*kpageflags >= 0)
		return 0;
	e = errno;
	close(*pagemap);
	return -e;
}

static long pageout(int pidfd, struct iovec *iov, int n)
{
	long r = syscall(SYS_process_madvise, pidfd, iov, (size_t)n, MADV_PAGEOUT, 0);

	return r < 0 ? -errno : r;
}

long thp_split_by_pageout(const struct task_ref *t, uint64_t start, uint64_t end, uint64_t budget,
			  uint64_t *split_bytes)
{
	struct iovec iov[PAGEOUT_IOV_MAX];
	int pagemap = -1, kpageflags = -1, n = 0, pidfd = t->pidfd, r;
	long err = 0;

	*split_bytes = 0;
	if (!pids_are_real() || pidfd < 0)
		return -EXDEV;
	r = open_pagemaps(t->pid, &pagemap, &kpageflags);
	if (r)
		return r;
	/* The pagemap fd is bound to the mm of the task that had the pid at open. */
	if (!task_ref_alive(t)) {
		err = -ESRCH;
		goto out;
	}
	start = (start + THP_BYTES - 1) & ~(THP_BYTES - 1);
	for (uint64_t a = start; a + THP_BYTES <= end && *split_bytes < budget; a += THP_BYTES) {
		if (!is_thp_at(pagemap, kpageflags, a))
			continue;
		iov[n].iov_base = (void *)(uintptr_t)a;
		iov[n++].iov_len = 4096;
		*split_bytes += THP_BYTES;
		if (n == PAGEOUT_IOV_MAX) {
			long w = pageout(pidfd, iov, n);

			err = w < 0 ? w : err;
			n = 0;
		}
	}
	if (n) {
		long w = pageout(pidfd, iov, n);

		err = w < 0 ? w : err;
	}
out:
	close(pagemap);
	close(kpageflags);
	return err;
}
