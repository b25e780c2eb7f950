// SPDX-License-Identifier: GPL-2.0
/* The rules the BPF programs tell a split's cause by: syscall numbers as
 * this architecture's kernel has them, the advice, kernel thread names. */
#include <criterion/criterion.h>
#include <sys/mman.h>
#include <sys/syscall.h>

#include "observe/split_cause.h"
#include "taod/split_cause_rules.h"

#ifndef MADV_PAGEOUT
#define MADV_COLD    20
#define MADV_PAGEOUT 21
#endif
#ifndef MADV_DONTNEED_LOCKED
#define MADV_DONTNEED_LOCKED 24
#endif

/* The table's numbers are the C library's (the kernel's unistd.h). */
Test(split_cause_rules, syscall_numbers_are_this_architectures)
{
	static const struct {
		long ours, libc;
	} nr[] = {
	    {TAOD_NR_MUNMAP, SYS_munmap},
	    {TAOD_NR_MADVISE, SYS_madvise},
	    {TAOD_NR_PROCESS_MADVISE, SYS_process_madvise},
	    {TAOD_NR_MPROTECT, SYS_mprotect},
	    {TAOD_NR_PKEY_MPROTECT, SYS_pkey_mprotect},
	    {TAOD_NR_MREMAP, SYS_mremap},
	    {TAOD_NR_BRK, SYS_brk},
	    {TAOD_NR_EXIT, SYS_exit},
	    {TAOD_NR_EXIT_GROUP, SYS_exit_group},
	    {TAOD_NR_MBIND, SYS_mbind},
	    {TAOD_NR_MIGRATE_PAGES, SYS_migrate_pages},
	    {TAOD_NR_MOVE_PAGES, SYS_move_pages},
	};

	for (size_t i = 0; i < sizeof(nr) / sizeof(nr[0]); i++)
		cr_assert_eq(nr[i].ours, nr[i].libc, "row %zu: %ld, libc %ld", i, nr[i].ours,
			     nr[i].libc);
}

static const char *cause_of(long nr, unsigned long arg2, unsigned long arg3)
{
	return split_cause_name((int)syscall_cause(nr, arg2, arg3));
}

Test(split_cause_rules, each_syscall_gives_its_cause)
{
	cr_assert_str_eq(cause_of(SYS_munmap, 0, 0), "munmap");
	cr_assert_str_eq(cause_of(SYS_mprotect, 0, 0), "mprotect");
	cr_assert_str_eq(cause_of(SYS_pkey_mprotect, 0, 0), "mprotect");
	cr_assert_str_eq(cause_of(SYS_mremap, 0, 0), "mremap");
	cr_assert_str_eq(cause_of(SYS_brk, 0, 0), "brk");
	cr_assert_str_eq(cause_of(SYS_exit, 0, 0), "exit");
	cr_assert_str_eq(cause_of(SYS_exit_group, 0, 0), "exit");
	cr_assert_str_eq(cause_of(SYS_mbind, 0, 0), "migration");
	cr_assert_str_eq(cause_of(SYS_migrate_pages, 0, 0), "migration");
	cr_assert_str_eq(cause_of(SYS_move_pages, 0, 0), "migration");
	cr_assert_str_eq(cause_of(SYS_read, 0, 0), "other");
	cr_assert_str_eq(cause_of(-1, 0, 0), "other");
}

/* madvise's advice is its third argument, process_madvise's its fourth. */
Test(split_cause_rules, the_advice_decides_a_madvise)
{
	static const struct {
		unsigned long advice;
		const char *cause;
	} rows[] = {
	    {MADV_DONTNEED, "madvise_dontneed"}, {MADV_DONTNEED_LOCKED, "madvise_dontneed"},
	    {MADV_FREE, "madvise_free"},	 {MADV_PAGEOUT, "madvise_pageout"},
	    {MADV_COLD, "madvise_pageout"},	 {MADV_HUGEPAGE, "madvise_other"},
	    {MADV_REMOVE, "madvise_other"},
	};

	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		cr_assert_str_eq(cause_of(SYS_madvise, rows[i].advice, 999), rows[i].cause, "%lu",
				 rows[i].advice);
		cr_assert_str_eq(cause_of(SYS_process_madvise, 999, rows[i].advice), rows[i].cause,
				 "%lu", rows[i].advice);
	}
}

Test(split_cause_rules, kernel_threads_by_name)
{
	cr_assert_str_eq(split_cause_name((int)kthread_name_cause("khugepaged")), "khugepaged");
	cr_assert_str_eq(split_cause_name((int)kthread_name_cause("kswapd0")), "reclaim");
	cr_assert_str_eq(split_cause_name((int)kthread_name_cause("kcompactd0")), "migration");
	cr_assert_str_eq(split_cause_name((int)kthread_name_cause("kworker/1:0")), "other");
	cr_assert_str_eq(split_cause_name((int)kthread_name_cause("k")), "other");
}
