// SPDX-License-Identifier: GPL-2.0
/*
 * Prometheus text exposition. Names carry their unit (_bytes, _ratio,
 * _seconds) and counters end in _total; every family has HELP and TYPE
 * and its samples follow it together, as the format requires.
 */
#include "metrics.h"
#include "observe/cg_counters.h"
#include "metrics_internal.h"
#include "metrics_sizes.h"
#include "metrics_costs.h"
#include "metrics_pressure.h"
#include "common/utf8.h"

#include <assert.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/*
 * The families of a cgroup's memory and coverage, and the derived THP
 * allocations; the counters of TAOD_CG_COUNTERS that name a family follow
 * them (cg_counters).
 */
enum cg_metric { CG_ANON, CG_THP, CG_COVERAGE, CG_ALLOCS, CG_FIXED };

static const struct {
	const char *name, *type, *help;
} cg_families[CG_FIXED] = {
    [CG_ANON] = {"taod_cgroup_anon_bytes", "gauge",
		 "Anonymous memory of the cgroup (memory.stat)."},
    [CG_THP] = {"taod_cgroup_thp_bytes", "gauge", "Anonymous memory backed by THPs (memory.stat)."},
    [CG_COVERAGE] = {"taod_cgroup_thp_coverage_ratio", "gauge",
		     "THP-backed share of anonymous memory, 0 to 1."},
    [CG_ALLOCS] = {"taod_cgroup_thp_allocations_total", "counter",
		   "THP allocations (fault and collapse) since taod started."},
};

/* The value of fixed family @m for @e; false when there is none (no memory.stat, no anon). */
static bool cg_value(const struct cgroup_entry *e, enum cg_metric m, double *v)
{
	switch (m) {
	case CG_ANON:
		*v = (double)e->mem.anon_bytes;
		return e->mem_ok;
	case CG_THP:
		*v = (double)e->mem.thp_bytes;
		return e->mem_ok;
	case CG_COVERAGE:
		*v = e->coverage_pct / 100.0;
		return e->coverage_pct >= 0;
	case CG_ALLOCS:
		*v = (double)cg_thp_allocs(&e->counters);
		return true;
	case CG_FIXED:
		break;
	}
	return false;
}

/* The family of index @m: the fixed ones, then the list's counters that have one. */
static bool cg_family(size_t m, const char **name, const char **type, const char **help,
		      const struct cg_counter **counter)
{
	*counter = NULL;
	if (m < CG_FIXED) {
		*name = cg_families[m].name;
		*type = cg_families[m].type;
		*help = cg_families[m].help;
		return true;
	}
	if (m - CG_FIXED >= CG_NCOUNTERS)
		return false;
	*counter = &cg_counters[m - CG_FIXED];
	*name = (*counter)->metric;
	*type = "counter"; /* the list holds monotonic counts only */
	*help = (*counter)->help;
	return true;
}

static void write_cgroups(FILE *f, const struct cgroup_table *t)
{
	const char *name, *type, *help;
	const struct cg_counter *counter;
	size_t longest = 0, label_max;
	char *label;

	/* Paths have no length limit: a cut label would merge two cgroups' series. */
	for (size_t i = 0; i < t->n; i++)
		if (t->v[i]->path && strlen(t->v[i]->path) > longest)
			longest = strlen(t->v[i]->path);
	label_max = 3 * longest + 1; /* U+FFFD for every byte at worst */
	label = malloc(label_max);
	if (!label)
		return;
	for (size_t m = 0; cg_family(m, &name, &type, &help, &counter); m++) {
		if (!*name)
			continue; /* a counter without a family */
		metrics_family(f, name, type, help);
		for (size_t i = 0; i < t->n; i++) {
			const struct cgroup_entry *e = t->v[i];
			double v = counter ? (double)cg_counter_value(&e->counters, counter) : 0;

			if (!e->path || (!counter && !cg_value(e, (enum cg_metric)m, &v)))
				continue;
			prom_escape_label(e->path, label, label_max);
			fprintf(f, "%s{cgroup=\"%s\"} %.17g\n", name, label, v);
		}
	}
	free(label);
}

static void write_bpf(FILE *f, const uint64_t *stats)
{
	static const char *const programs[TAOD_STAT_MAX] = {
	    [TAOD_STAT_MEMCG_EVENTS] = "memcg",		  [TAOD_STAT_LRUVEC_EVENTS] = "lruvec",
	    [TAOD_STAT_PAGE_ALLOC_EVENTS] = "page_alloc", [TAOD_STAT_SPLIT_EVENTS] = "split",
	    [TAOD_STAT_THP_PATH_EVENTS] = "thp_path",	  [TAOD_STAT_MTHP_EVENTS] = "mthp",
	};

	metrics_family(f, "taod_bpf_events_total", "counter",
		       "Events seen by taod's BPF programs, by program.");
	for (int i = 0; i < TAOD_STAT_MAX; i++)
		if (programs[i])
			fprintf(f, "taod_bpf_events_total{program=\"%s\"} %llu\n", programs[i],
				(unsigned long long)stats[i]);
	metrics_family(
	    f, "taod_bpf_map_full_total", "counter",
	    "Events whose cgroup found a BPF map full: cg_counters (counted in the "
	    "overflow LRU instead) or cg_sizes (lost; raise [kernel] cgroup_map_entries), "
	    "or folios left partly mapped that queued_folios could not hold (before 6.12).");
	fprintf(f, "taod_bpf_map_full_total{map=\"cg_counters\"} %llu\n",
		(unsigned long long)stats[TAOD_STAT_CG_COUNTERS_FULL]);
	fprintf(f, "taod_bpf_map_full_total{map=\"cg_sizes\"} %llu\n",
		(unsigned long long)stats[TAOD_STAT_CG_SIZES_FULL]);
	fprintf(f, "taod_bpf_map_full_total{map=\"queued_folios\"} %llu\n",
		(unsigned long long)stats[TAOD_STAT_QUEUED_FOLIOS_FULL]);
	metrics_family(f, "taod_bpf_pending_flushed_total", "counter",
		       "PMD removals settled as splits by the tick's flush.");
	fprintf(f, "taod_bpf_pending_flushed_total %llu\n",
		(unsigned long long)stats[TAOD_STAT_PENDING_FLUSHED]);
}

static void write_zones(FILE *f, const struct machine_stats *m)
{
	unsigned long long page = (unsigned long long)sysconf(_SC_PAGESIZE);

	metrics_family(f, "taod_zone_managed_bytes", "gauge", "Memory managed by the zone.");
	for (size_t i = 0; i < m->nzones; i++)
		fprintf(f, "taod_zone_managed_bytes{node=\"%d\",zone=\"%s\"} %llu\n",
			m->zones[i].node, m->zones[i].name,
			(unsigned long long)m->zones[i].managed_pages * page);
	metrics_family(f, "taod_zone_free_bytes", "gauge", "Free memory in the zone.");
	for (size_t i = 0; i < m->nzones; i++)
		fprintf(f, "taod_zone_free_bytes{node=\"%d\",zone=\"%s\"} %llu\n", m->zones[i].node,
			m->zones[i].name, (unsigned long long)m->zones[i].free_pages * page);
	metrics_family(f, "taod_zone_free_blocks", "gauge",
		       "Free blocks in the zone by order (buddyinfo).");
	for (size_t i = 0; i < m->nzones; i++)
		for (int o = 0; o < m->zones[i].norders; o++)
			fprintf(
			    f, "taod_zone_free_blocks{node=\"%d\",zone=\"%s\",order=\"%d\"} %llu\n",
			    m->zones[i].node, m->zones[i].name, o,
			    (unsigned long long)m->zones[i].free_blocks[o]);
}

/* The policy zones' vmstat counters: (metric, zone label, counter). */
static const struct {
	const char *metric, *zone;
	enum tao_vmstat item;
} zone_counters[] = {
    {"taod_zone_pgalloc_total", "NoSplit", TVM_PGALLOC_NOSPLIT},
    {"taod_zone_pgalloc_total", "NoMerge", TVM_PGALLOC_NOMERGE},
    {"taod_zone_allocstall_total", "NoSplit", TVM_ALLOCSTALL_NOSPLIT},
    {"taod_zone_allocstall_total", "NoMerge", TVM_ALLOCSTALL_NOMERGE},
    {"taod_zone_pgskip_total", "NoSplit", TVM_PGSKIP_NOSPLIT},
    {"taod_zone_pgskip_total", "NoMerge", TVM_PGSKIP_NOMERGE},
};

static const char *const zone_counter_help[] = {
    "Pages allocated from the TAO policy zone (vmstat pgalloc_*).",
    "Allocations that stalled for the TAO policy zone (vmstat allocstall_*).",
    "Pages skipped in the TAO policy zone by reclaim (vmstat pgskip_*).",
};

/* TAO kernels only: each family where the kernel has its counter. */
static void write_tao(FILE *f, const struct machine_stats *m)
{
	static const char *const results[] = {"shattered", "failed", "discarded"};
	const char *last = NULL;

	metrics_family(f, "taod_zone_order", "gauge",
		       "The TAO policy zone's THP order (zoneinfo).");
	for (size_t i = 0; i < m->nzones; i++)
		if (m->zones[i].order >= 0)
			fprintf(f, "taod_zone_order{node=\"%d\",zone=\"%s\"} %d\n",
				m->zones[i].node, m->zones[i].name, m->zones[i].order);
	for (size_t i = 0; i < sizeof(zone_counters) / sizeof(*zone_counters); i++) {
		if (!tao_vmstat_has(m, zone_counters[i].item))
			continue;
		if (!last || strcmp(last, zone_counters[i].metric))
			metrics_family(f, zone_counters[i].metric, "counter",
				       zone_counter_help[i / 2]);
		last = zone_counters[i].metric;
		fprintf(f, "%s{zone=\"%s\"} %llu\n", zone_counters[i].metric, zone_counters[i].zone,
			(unsigned long long)m->tao[zone_counters[i].item]);
	}
	if (tao_vmstat_has(m, TVM_SHATTER))
		metrics_family(f, "taod_shatter_pages_total", "counter",
			       "THPs the kernel shattered or failed to shatter; result=discarded: "
			       "base pages it freed while shattering (vmstat counts pages there).");
	for (int r = 0; r < 3; r++)
		if (tao_vmstat_has(m, TVM_SHATTER + r))
			fprintf(f, "taod_shatter_pages_total{result=\"%s\"} %llu\n", results[r],
				(unsigned long long)m->tao[TVM_SHATTER + r]);
	if (!tao_vmstat_has(m, TVM_HVO))
		return;
	metrics_family(f, "taod_hvo_pages_total", "counter",
		       "THPs whose vmemmap was optimized (HVO).");
	fprintf(f, "taod_hvo_pages_total %llu\n", (unsigned long long)m->tao[TVM_HVO]);
	metrics_family(f, "taod_hvo_saved_bytes", "gauge",
		       "vmemmap HVO saved: 28 KiB per 2 MiB THP.");
	fprintf(f, "taod_hvo_saved_bytes %llu\n",
		(unsigned long long)m->tao[TVM_HVO] * HVO_SAVED_PER_THP);
}

static void write_daemon(FILE *f, const struct metrics_input *in)
{
	char v[256], k[64], o[64];

	prom_escape_label(in->version ? in->version : "", v, sizeof(v));
	prom_escape_label(in->kernel_kind ? in->kernel_kind : "", k, sizeof(k));
	prom_escape_label(in->observation_mode ? in->observation_mode : "", o, sizeof(o));
	metrics_family(
	    f, "taod_up", "gauge",
	    "1 while taod runs and writes these metrics; 0 in the textfile it left at exit.");
	fprintf(f, "taod_up %d\n", in->down ? 0 : 1);
	metrics_family(f, "taod_build_info", "gauge",
		       "taod version, kernel kind and observation mode.");
	fprintf(f, "taod_build_info{version=\"%s\",kernel=\"%s\",observation=\"%s\"} 1\n", v, k, o);
	metrics_family(f, "taod_start_time_seconds", "gauge", "When taod started, Unix time.");
	fprintf(f, "taod_start_time_seconds %.3f\n", (double)in->start_wall_ms / 1000.0);
	metrics_family(f, "taod_ticks_total", "counter", "Pipeline ticks run.");
	fprintf(f, "taod_ticks_total %llu\n", (unsigned long long)in->ticks);
	metrics_family(f, "taod_tick_duration_seconds", "gauge", "How long the last tick took.");
	fprintf(f, "taod_tick_duration_seconds %.6f\n", (double)in->last_tick_cost_us / 1e6);
	metrics_family(f, "taod_cgroups", "gauge", "Memory cgroups tracked.");
	fprintf(f, "taod_cgroups %zu\n", in->cgroups->n);
	metrics_family(f, "taod_history_enabled", "gauge",
		       "1 while the history database is open and its writes succeed.");
	fprintf(f, "taod_history_enabled %d\n", in->history_enabled ? 1 : 0);
}

int metrics_write(FILE *f, const struct metrics_input *in)
{
	assert(f);
	assert(in);
	write_daemon(f, in);
	write_bpf(f, in->bpf_stats);
	write_cgroups(f, in->cgroups);
	metrics_write_health(f, in);
	metrics_write_costs(f, in);
	metrics_write_workloads(f, in->cgroups);
	metrics_write_sizes(f, in->cgroups);
	if (in->pressure)
		metrics_write_pressure(f, in->pressure);
	if (in->machine)
		write_zones(f, in->machine);
	if (in->machine && in->machine->tao_present)
		write_tao(f, in->machine);
	return ferror(f) ? -EIO : 0;
}

char *metrics_text(const struct metrics_input *in)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	int r;

	if (!f)
		return NULL;
	r = metrics_write(f, in);
	if (fclose(f) || r) {
		free(buf);
		return NULL;
	}
	return buf;
}
