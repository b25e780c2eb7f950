// SPDX-License-Identifier: GPL-2.0
#include "size_held.h"

#include <unistd.h>

#include "observe/size_events.h"

uint64_t size_kb_of(int order)
{
	long page_kb = sysconf(_SC_PAGESIZE) / 1024;

	return (uint64_t)(page_kb > 0 ? page_kb : 4) << order;
}

int size_pmd_order(void)
{
	long page = sysconf(_SC_PAGESIZE);
	int order = 0;

	/* A page table of 8-byte entries maps a PMD. */
	while ((1L << order) < (page > 0 ? page : 4096) / 8)
		order++;
	return order;
}

uint64_t size_partial_folios(const struct cgroup_entry *e, int order)
{
	__s64 n;

	if (order < 2 || order >= TAOD_MAX_ORDER)
		return 0;
	n = e->sizes.nr_partial[order] + e->adopted_partial[order];
	return n > 0 ? (uint64_t)n : 0;
}

uint64_t size_partial_bytes(const struct cgroup_entry *e)
{
	uint64_t bytes = 0;

	for (int order = 2; order < TAOD_MAX_ORDER; order++)
		bytes += size_partial_folios(e, order) * size_kb_of(order) * 1024;
	return bytes;
}

void size_counts_shown(const struct cgroup_entry *e, struct taod_cg_sizes *out)
{
	*out = e->sizes;
	size_events_add(out, &e->folded_sizes);
}

uint64_t size_held_bytes(const struct cgroup_entry *e, int order)
{
	if (order < 2 || order >= TAOD_MAX_ORDER || e->sizes.nr_anon[order] <= 0)
		return 0;
	return (uint64_t)e->sizes.nr_anon[order] * size_kb_of(order) * 1024;
}

double size_coverage_pct(const struct cgroup_entry *e, int order)
{
	double pct;

	if (!e->mem_ok || !e->mem.has_anon || !e->mem.anon_bytes)
		return -1;
	pct = 100.0 * (double)size_held_bytes(e, order) / (double)e->mem.anon_bytes;
	return pct > 100.0 ? 100.0 : pct;
}
