// SPDX-License-Identifier: GPL-2.0
/*
 * The order every report rendering for people shows cgroups in, and which
 * of them it shows by default: the operator reads from the top, so what
 * needs attention comes first, and a host's idle cgroups stay out of it.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/busiest.h"
#include "report/report.h"

static bool active(const struct report_cgroup *c)
{
	if (c->thp_alloc)
		return true;
	for (size_t i = 0; i < CG_NCOUNTERS; i++) /* any counter the history kept */
		if (c->counts[i])
			return true;
	return false;
}

enum report_concern report_concern(const struct report_cgroup *c)
{
	if (!strcmp(c->class, "abuser"))
		return CONCERN_ABUSER;
	if (!strcmp(c->class, "misuser"))
		return CONCERN_MISUSER;
	if (report_guarantee_missed(c))
		return CONCERN_MISSED;
	if (c->nactions)
		return CONCERN_ACTED;
	return active(c) ? CONCERN_ACTIVE : CONCERN_IDLE;
}

/* The busiest by THP traffic: allocations and PMD splits in the window. */
static uint64_t busy(const struct report_cgroup *c)
{
	return c->thp_alloc + c->counts[CG_IDX_pmd_split];
}

/*
 * Within a rank, the worse waste first: split ratio, then splits, then the
 * path; the merely active by traffic, the busiest first.
 */
static int by_concern(const void *a, const void *b, void *rp)
{
	const struct report *r = rp;
	const struct report_cgroup *x = &r->cgroups[*(const size_t *)a];
	const struct report_cgroup *y = &r->cgroups[*(const size_t *)b];
	double rx = report_split_ratio(x), ry = report_split_ratio(y);
	enum report_concern cx = report_concern(x), cy = report_concern(y);

	if (cx != cy)
		return (int)cx - (int)cy;
	if (cx == CONCERN_ACTIVE && busy(x) != busy(y))
		return busy(x) > busy(y) ? -1 : 1;
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

/*
 * Flags for busiest_pick: needs attention (a removed cgroup too: what was
 * done to it stays worth reading); busy only while present.
 */
static long pick(const struct report *r, bool *show)
{
	bool *flagged = calloc(r->ncgroups + 1, sizeof(*flagged));
	uint64_t *traffic = calloc(r->ncgroups + 1, sizeof(*traffic));
	long n = -1;

	if (flagged && traffic) {
		for (size_t i = 0; i < r->ncgroups; i++) {
			const struct report_cgroup *c = &r->cgroups[i];

			flagged[i] = report_concern(c) <= CONCERN_ACTED;
			traffic[i] = report_cgroup_present(r, c) ? busy(c) : 0;
		}
		n = busiest_pick(flagged, traffic, r->ncgroups, BUSIEST_SHOWN, show);
	}
	free(flagged);
	free(traffic);
	return n;
}

size_t *report_shown(const struct report *r, size_t *n)
{
	size_t *order = report_concern_order(r);
	bool *show = calloc(r->ncgroups + 1, sizeof(*show));
	size_t kept = 0;

	if (!order || !show || (!r->all && pick(r, show) < 0)) {
		free(order);
		free(show);
		return NULL;
	}
	for (size_t k = 0; k < r->ncgroups; k++)
		if (r->all || show[order[k]])
			order[kept++] = order[k];
	free(show);
	*n = kept;
	return order;
}

/* What the default left out, and how to see it. */
void report_left_out(FILE *f, const struct report *r, size_t shown, const char *before,
		     const char *after)
{
	if (shown < r->ncgroups)
		fprintf(f,
			"%s%zu of %zu cgroups left out: idle, removed, or quieter than the %d "
			"busiest (--all shows every one)%s",
			before, r->ncgroups - shown, r->ncgroups, BUSIEST_SHOWN, after);
}
