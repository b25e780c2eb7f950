// SPDX-License-Identifier: GPL-2.0
/* The tasks of a tenant that split the most THPs, from per-task counts. */
#include <assert.h>
#include <string.h>

#include "observe/task_rows.h"
#include "decide.h"
#include "observe/split_cause.h"

unsigned offenders_pick(const struct task_row *rows, size_t n, task_belongs_fn belongs, void *ctx,
			struct offender *out, unsigned max)
{
	assert(rows || !n);
	assert(belongs);
	assert(out || !max);

	unsigned k = 0;

	/* Rows come sorted by splits, most first (task_rows_collect). */
	for (size_t i = 0; i < n && k < max; i++) {
		const struct task_row *r = &rows[i];

		if (!r->c.pmd_split || !belongs(ctx, r->c.cgroup_id))
			continue;
		out[k].pid = r->tgid;
		memcpy(out[k].comm, r->c.comm, sizeof(out[k].comm));
		out[k].comm[sizeof(out[k].comm) - 1] = '\0';
		out[k].thp_alloc = r->c.thp_fault_alloc;
		out[k].pmd_split = r->c.pmd_split;
		out[k].pmd_split_pages = r->c.pmd_split_pages;
		out[k].top_cause = split_cause_top(r->c.pmd_split_by_cause);
		out[k].top_cause_splits =
		    out[k].top_cause < 0 ? 0 : r->c.pmd_split_by_cause[out[k].top_cause];
		k++;
	}
	return k;
}

int offenders_top_cause(const struct task_row *rows, size_t n, task_belongs_fn belongs, void *ctx,
			uint64_t *top_splits, uint64_t *splits)
{
	assert(rows || !n);
	assert(belongs);
	assert(top_splits);
	assert(splits);

	__u64 by_cause[TAOD_CAUSE_MAX] = {0};
	int top;

	*splits = 0;
	for (size_t i = 0; i < n; i++) {
		const struct task_row *r = &rows[i];

		if (!r->c.pmd_split || !belongs(ctx, r->c.cgroup_id))
			continue;
		*splits += r->c.pmd_split;
		for (int c = 0; c < TAOD_CAUSE_MAX; c++)
			by_cause[c] += r->c.pmd_split_by_cause[c];
	}
	top = split_cause_top(by_cause);
	*top_splits = top < 0 ? 0 : by_cause[top];
	return top;
}
