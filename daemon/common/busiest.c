// SPDX-License-Identifier: GPL-2.0
/* The cgroups a listing shows by default: the flagged, then the busiest. */
#define _GNU_SOURCE
#include "busiest.h"

#include <assert.h>
#include <stdlib.h>

static int by_busy(const void *a, const void *b, void *busy_v)
{
	const uint64_t *busy = busy_v;
	size_t x = *(const size_t *)a, y = *(const size_t *)b;

	if (busy[x] != busy[y])
		return busy[x] > busy[y] ? -1 : 1;
	return (x > y) - (x < y);
}

long busiest_pick(const bool *flagged, const uint64_t *busy, size_t n, size_t top, bool *show)
{
	assert(flagged || !n);
	assert(busy || !n);
	assert(show || !n);

	size_t *cand = malloc((n + 1) * sizeof(*cand)), m = 0;
	long shown = 0;

	if (!cand)
		return -1;
	for (size_t i = 0; i < n; i++) {
		show[i] = flagged[i];
		shown += flagged[i];
		if (!flagged[i] && busy[i])
			cand[m++] = i; /* ranked below */
	}
	qsort_r(cand, m, sizeof(*cand), by_busy, (void *)busy);
	for (size_t k = 0; k < m && k < top; k++, shown++)
		show[cand[k]] = true;
	free(cand);
	return shown;
}
