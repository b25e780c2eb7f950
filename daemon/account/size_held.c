// SPDX-License-Identifier: GPL-2.0
#include "size_held.h"

#include <unistd.h>

#include "observe/size_events.h"

uint64_t size_kb_of(int order)
{
	long page_kb = sysconf(_SC_PAGESIZE) / 1024;

	return (uint64_t)(page_kb > 0 ? page_kb : 4) << order;
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
