// SPDX-License-Identifier: GPL-2.0
/* Split cause names (one X-macro list with the BPF enum) and the top cause. */
#include <criterion/criterion.h>
#include <string.h>

#include "observe/split_cause.h"

Test(split_cause, split_cause_name_follows_the_enum)
{
	cr_assert_str_eq(split_cause_name(TAOD_CAUSE_OTHER), "other");
	cr_assert_str_eq(split_cause_name(TAOD_CAUSE_COW), "cow");
	cr_assert_str_eq(split_cause_name(TAOD_CAUSE_MUNMAP), "munmap");
	cr_assert_str_eq(split_cause_name(TAOD_CAUSE_MADV_DONTNEED), "madvise_dontneed");
	cr_assert_str_eq(split_cause_name(TAOD_CAUSE_MADV_FREE), "madvise_free");
	cr_assert_str_eq(split_cause_name(TAOD_CAUSE_MADV_PAGEOUT), "madvise_pageout");
	cr_assert_str_eq(split_cause_name(TAOD_CAUSE_MADV_OTHER), "madvise_other");
	cr_assert_str_eq(split_cause_name(TAOD_CAUSE_MPROTECT), "mprotect");
	cr_assert_str_eq(split_cause_name(TAOD_CAUSE_MREMAP), "mremap");
	cr_assert_str_eq(split_cause_name(TAOD_CAUSE_BRK), "brk");
	cr_assert_str_eq(split_cause_name(TAOD_CAUSE_EXIT), "exit");
	cr_assert_str_eq(split_cause_name(TAOD_CAUSE_MIGRATION), "migration");
	cr_assert_str_eq(split_cause_name(TAOD_CAUSE_KHUGEPAGED), "khugepaged");
	cr_assert_str_eq(split_cause_name(TAOD_CAUSE_RECLAIM), "reclaim");
	cr_assert_eq(TAOD_CAUSE_MAX, 14);
}

Test(split_cause, split_cause_name_rejects_out_of_range)
{
	cr_assert_str_eq(split_cause_name(-1), "unknown");
	cr_assert_str_eq(split_cause_name(TAOD_CAUSE_MAX), "unknown");
}

Test(split_cause, split_cause_from_name_round_trips_every_cause)
{
	for (int c = 0; c < TAOD_CAUSE_MAX; c++) {
		cr_assert_eq(split_cause_from_name(split_cause_name(c)), c, "%d", c);
		for (int d = 0; d < c; d++)
			cr_assert_str_neq(split_cause_name(c), split_cause_name(d));
	}
	cr_assert_eq(split_cause_from_name("unknown"), -1);
	cr_assert_eq(split_cause_from_name(""), -1);
}

Test(split_cause, split_cause_top_takes_the_most_and_the_first_on_a_tie)
{
	__u64 by[TAOD_CAUSE_MAX] = {0};

	cr_assert_eq(split_cause_top(by), -1);
	by[TAOD_CAUSE_MPROTECT] = 2;
	cr_assert_eq(split_cause_top(by), TAOD_CAUSE_MPROTECT);
	by[TAOD_CAUSE_COW] = 5;
	by[TAOD_CAUSE_RECLAIM] = 5;
	cr_assert_eq(split_cause_top(by), TAOD_CAUSE_COW);
	by[TAOD_CAUSE_RECLAIM] = 6;
	cr_assert_eq(split_cause_top(by), TAOD_CAUSE_RECLAIM);
}

Test(split_cause, split_cause_returns_memory_only_for_a_tasks_memory_calls)
{
	const char *calls[] = {
	    "munmap",	     "madvise_dontneed", "madvise_free", "madvise_pageout",
	    "madvise_other", "mprotect",	 "mremap",	 "brk"};
	const char *others[] = {"other", "cow", "exit", "migration", "khugepaged", "reclaim"};

	for (size_t i = 0; i < sizeof(calls) / sizeof(calls[0]); i++)
		cr_assert(split_cause_returns_memory(split_cause_from_name(calls[i])), "%s",
			  calls[i]);
	for (size_t i = 0; i < sizeof(others) / sizeof(others[0]); i++)
		cr_assert_not(split_cause_returns_memory(split_cause_from_name(others[i])), "%s",
			      others[i]);
	cr_assert_not(split_cause_returns_memory(-1));
}
