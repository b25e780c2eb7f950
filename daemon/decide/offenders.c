// SPDX-License-Identifier: GPL-2.0
/* The tasks of a tenant that split the most THPs, from per-task counts. */
#include <string.h>

#include "taod/task_rows.h"
#include "taod/decide.h"
#include "taod/split_cause.h"

unsigned offenders_pick(const struct task_row *rows, size_t n, task_belongs_fn belongs, void *ctx,
			struct offender *out, unsigned max)
{
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
