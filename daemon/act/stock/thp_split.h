/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The page-table split, run by the stock shatter and the boot-zone TAO
 * shatter. Defined in thp_split.c.
 */
#ifndef TAOD_ACT_THP_SPLIT_H
#define TAOD_ACT_THP_SPLIT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "act/act_backend.h"
#include "mthp_split.h"

struct split_tally {
	uint64_t bytes, partial_bytes; /* THP bytes asked to split; of them partly mapped */
	int tasks, writes, failed, err;
	bool pageout;	/* debugfs refused: MADV_PAGEOUT did it */
	bool timed_out; /* stopped by the action's time (act_time.h) */
	/* Below the PMD size (@req->sizes with POLICY_SIZES_MTHP): the
	 * mappings written and the kernel's per-size split deltas. */
	struct mthp_split_tally mthp;
};

/*
 * Who says what was split: the task's page tables read back after each
 * write (stock: a chunk still mapping an anonymous THP was not split), or
 * the kernel's own counters, read by the caller (TAO: vmstat's shatter
 * counts; a shattered THP's pages are migrated, which the page tables
 * show too, but only the counters tell shattered from split).
 */
enum split_check { SPLIT_CHECK_PAGES, SPLIT_CHECK_VMSTAT };

/*
 * Splits the THPs of @req's task (or its cgroup's tasks) within @budget
 * through debugfs split_huge_pages, or MADV_PAGEOUT where debugfs is
 * refused. 0 with @t filled (some writes may have failed); otherwise @o is
 * set and the caller is done: -errno for the failure when nothing could be
 * split, 1 for RESULT_NO_GAIN when no THP was found within @budget.
 */
int thp_split_offender(const struct act_ctx *c, const struct action_request *req, uint64_t budget,
		       enum split_check check, struct split_tally *t, struct act_outcome *o);
/* How the split went: the debugfs file, or MADV_PAGEOUT. */
const char *thp_split_via(const struct act_ctx *c, const struct split_tally *t);

#endif
