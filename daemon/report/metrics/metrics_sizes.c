// SPDX-License-Identifier: GPL-2.0
#include "metrics_sizes.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "metrics.h"
#include "account/size_held.h"
#include "observe/size_events.h"

typedef void (*entry_writer)(FILE *f, const struct cgroup_entry *e, const char *label,
			     const void *arg);

/* @fn of every cgroup with a path, its path escaped into @label. */
static void each_entry(FILE *f, const struct cgroup_table *t, char *label, size_t label_max,
		       entry_writer fn, const void *arg)
{
	for (size_t i = 0; i < t->n; i++) {
		if (!t->v[i]->path)
			continue;
		prom_escape_label(t->v[i]->path, label, label_max);
		fn(f, t->v[i], label, arg);
	}
}

static void write_entry(FILE *f, const struct cgroup_entry *e, const char *label, const void *arg)
{
	long page_kb = *(const long *)arg;
	struct taod_cg_sizes shown;

	size_counts_shown(e, &shown); /* removed descendants' folded in */
	for (int order = 2; order < TAOD_MAX_ORDER; order++) {
		if (!size_any(&shown, order))
			continue;
		for (int ev = 0; ev < SIZE_NEVENTS; ev++)
			fprintf(f,
				"taod_cgroup_mthp_folios_total{cgroup=\"%s\",size_kb=\"%ld\","
				"event=\"%s\"} %llu\n",
				label, page_kb << order, size_events[ev].json,
				(unsigned long long)size_count(&shown, &size_events[ev], order));
	}
}

/* The bytes held in folios of each size, and their share of anon memory. */
static void write_held(FILE *f, const struct cgroup_entry *e, const char *label, const void *arg)
{
	bool ratio = *(const bool *)arg;

	for (int order = 2; order < TAOD_MAX_ORDER; order++) {
		uint64_t held = size_held_bytes(e, order);
		double pct = size_coverage_pct(e, order);

		if (!held && !e->sizes.fault_alloc[order])
			continue;
		if (!ratio)
			fprintf(
			    f,
			    "taod_cgroup_mthp_mapped_bytes{cgroup=\"%s\",size_kb=\"%llu\"} %llu\n",
			    label, (unsigned long long)size_kb_of(order), (unsigned long long)held);
		else if (pct >= 0)
			fprintf(f,
				"taod_cgroup_mthp_coverage_ratio{cgroup=\"%s\",size_kb=\"%llu\"} "
				"%.6g\n",
				label, (unsigned long long)size_kb_of(order), pct / 100.0);
	}
}

static void write_held_families(FILE *f, const struct cgroup_table *t, char *label,
				size_t label_max)
{
	static const bool bytes = false, ratio = true;

	fprintf(f, "# HELP taod_cgroup_mthp_mapped_bytes Bytes in large anonymous folios of each "
		   "size the cgroup holds (mapped since taod started, until split or freed).\n"
		   "# TYPE taod_cgroup_mthp_mapped_bytes gauge\n");
	each_entry(f, t, label, label_max, write_held, &bytes);
	fprintf(f, "# HELP taod_cgroup_mthp_coverage_ratio Share of the cgroup's anon memory in "
		   "large folios of each size.\n"
		   "# TYPE taod_cgroup_mthp_coverage_ratio gauge\n");
	each_entry(f, t, label, label_max, write_held, &ratio);
}

/* Every size @e ever left partly mapped, and how many it has so now (a
 * gauge at 0 stays). */
static void write_partly(FILE *f, const struct cgroup_entry *e, const char *label, const void *arg)
{
	(void)arg;
	for (int order = 2; order < TAOD_MAX_ORDER; order++)
		if (e->sizes.partial[order])
			fprintf(f,
				"taod_cgroup_partly_mapped_folios{cgroup=\"%s\",size_kb=\"%llu\"} "
				"%llu\n",
				label, (unsigned long long)size_kb_of(order),
				(unsigned long long)size_partial_folios(e, order));
}

/* The folios each cgroup has partly mapped now, by size (where counted). */
static void write_partly_mapped(FILE *f, const struct cgroup_table *t, char *label,
				size_t label_max)
{
	if (!t->partial_gauge)
		return;
	fprintf(f, "# HELP taod_cgroup_partly_mapped_folios Large anonymous folios of each size "
		   "the cgroup has partly mapped now (left so by a partial unmap, until split "
		   "or freed): contiguity stranded.\n"
		   "# TYPE taod_cgroup_partly_mapped_folios gauge\n");
	each_entry(f, t, label, label_max, write_partly, NULL);
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
	fputs("# HELP taod_cgroup_mthp_folios_total Large anonymous folios by size: ", f);
	size_events_list(f, offsetof(struct size_event, phrase), "%s", ", ");
	fputs(" (fentry only), since taod started.\n"
	      "# TYPE taod_cgroup_mthp_folios_total counter\n",
	      f);
	page_kb = page_kb > 0 ? page_kb : 4;
	each_entry(f, t, label, label_max, write_entry, &page_kb);
	write_held_families(f, t, label, label_max);
	write_partly_mapped(f, t, label, label_max);
	free(label);
}
