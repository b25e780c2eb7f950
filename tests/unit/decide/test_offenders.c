// SPDX-License-Identifier: GPL-2.0
/* offenders_pick: a cgroup's splitting tasks, each with its top split cause. */
#include <criterion/criterion.h>
#include <string.h>

#include "decide/decide.h"
#include "observe/split_cause.h"
#include "observe/task_rows.h"

static struct task_row row(uint32_t tgid, uint64_t cg, uint64_t splits)
{
	struct task_row r = {.tgid = tgid};

	r.c.cgroup_id = cg;
	r.c.pmd_split = splits;
	strcpy(r.c.comm, "worker");
	return r;
}

/* The tenant is cgroup 7 alone. */
static bool in_seven(void *ctx, uint64_t cgroup_id)
{
	(void)ctx;
	return cgroup_id == 7;
}

Test(offenders, offenders_pick_carries_the_top_cause)
{
	struct task_row rows[3] = {row(10, 7, 9), row(11, 8, 5), row(12, 7, 2)};
	struct offender out[4];
	unsigned n;

	rows[0].c.pmd_split_by_cause[TAOD_CAUSE_MUNMAP] = 2;
	rows[0].c.pmd_split_by_cause[TAOD_CAUSE_MADV_DONTNEED] = 7;
	n = offenders_pick(rows, 3, in_seven, NULL, out, 4);
	cr_assert_eq(n, 2);
	cr_assert_eq(out[0].pid, 10);
	cr_assert_eq(out[0].top_cause, TAOD_CAUSE_MADV_DONTNEED);
	cr_assert_eq(out[0].top_cause_splits, 7);
	cr_assert_str_eq(split_cause_name(out[0].top_cause), "madvise_dontneed");
	/* Splits with no cause told (another task's cgroup, before an upgrade). */
	cr_assert_eq(out[1].pid, 12);
	cr_assert_eq(out[1].top_cause, -1);
	cr_assert_eq(out[1].top_cause_splits, 0);
}
