// SPDX-License-Identifier: GPL-2.0
#include "metrics_sizes.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "metrics.h"

static const char *const events[] = {"fault_alloc", "partial_unmap", "split"};

static uint64_t event_count(const struct taod_cg_sizes *s, int ev, int order)
{
	return ev == 0 ? s->fault_alloc[order] : ev == 1 ? s->partial[order] : s->split[order];
}

static void write_entry(FILE *f, const struct cgroup_entry *e, const char *label, long page_kb)
{
	for (int order = 2; order < TAOD_MAX_ORDER; order++) {
		const struct taod_cg_sizes *s = &e->sizes;

		if (!s->fault_alloc[order] && !s->partial[order] && !s->split[order])
			continue;
		for (int ev = 0; ev < 3; ev++)
			fprintf(f,
				"taod_cgroup_mthp_folios_total{cgroup=\"%s\",size_kb=\"%ld\","
				"event=\"%s\"} %llu\n",
				label, page_kb << order, events[ev],
				(unsigned long long)event_count(s, ev, order));
	}
}

void metrics_write_sizes(FILE *f, const struct cgroup_table *t)
{
	long page_kb = sysconf(_SC_PAGESIZE) / 1024;
	size_t longest = 0, label_max;
	char *label;

	for (size_t i = 0; i < t->n; i++)
		if (t->v[i]->path && strlen(t->v[i]->path) > longest)
			longest = strlen(t->v[i]->path);
	label_max = 3 * longest + 1; /* as metrics.c: never a cut label */
	label = malloc(label_max);
	if (!label)
		return;
	fprintf(f, "# HELP taod_cgroup_mthp_folios_total Large anonymous folios by size: faulted, "
		   "left partially mapped, split (fentry only), since taod started.\n"
		   "# TYPE taod_cgroup_mthp_folios_total counter\n");
	for (size_t i = 0; i < t->n; i++) {
		if (!t->v[i]->path)
			continue;
		prom_escape_label(t->v[i]->path, label, label_max);
		write_entry(f, t->v[i], label, page_kb > 0 ? page_kb : 4);
	}
	free(label);
}
