// SPDX-License-Identifier: GPL-2.0
/*
 * The order every report rendering for people shows cgroups in: the
 * operator reads from the top, so what needs attention comes first.
 */
#define _GNU_SOURCE
#include <stdlib.h>
#include <string.h>

#include "report/report.h"

/* Lower is more concerning. */
static int concern(const struct report_cgroup *c)
{
	if (!strcmp(c->class, "abuser"))
		return 0;
	if (!strcmp(c->class, "misuser"))
		return 1;
	if (report_guarantee_missed(c))
		return 2;
	if (c->thp_alloc)
		return 3;
	for (size_t i = 0; i < CG_NCOUNTERS; i++) /* any counter the history kept */
		if (c->counts[i])
			return 3;
	return 4;
}

/* Within a rank, the worse waste first: split ratio, then splits, then the path. */
static int by_concern(const void *a, const void *b, void *rp)
{
	const struct report *r = rp;
	const struct report_cgroup *x = &r->cgroups[*(const size_t *)a];
	const struct report_cgroup *y = &r->cgroups[*(const size_t *)b];
	double rx = report_split_ratio(x), ry = report_split_ratio(y);
	int cx = concern(x), cy = concern(y);

	if (cx != cy)
		return cx - cy;
	if (rx != ry)
		return rx > ry ? -1 : 1;
	if (x->counts[CG_IDX_pmd_split] != y->counts[CG_IDX_pmd_split])
		return x->counts[CG_IDX_pmd_split] > y->counts[CG_IDX_pmd_split] ? -1 : 1;
	return strcmp(x->path, y->path);
}

size_t *report_concern_order(const struct report *r)
{
	size_t *idx = malloc((r->ncgroups + 1) * sizeof(*idx));

	if (!idx)
		return NULL;
	for (size_t i = 0; i < r->ncgroups; i++)
		idx[i] = i;
	qsort_r(idx, r->ncgroups, sizeof(*idx), by_concern, (void *)r);
	return idx;
}
