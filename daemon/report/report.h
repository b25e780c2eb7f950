/* SPDX-License-Identifier: GPL-2.0 */
/*
 * `taoctl report`: what the history database holds for a time window,
 * read-only (no daemon needed), and its renderings as a table, JSON, CSV
 * or a self-contained HTML page with an SVG chart per cgroup.
 */
#ifndef TAOD_REPORT_H
#define TAOD_REPORT_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "observe/cg_counters.h"
#include "observe/size_events.h"
#include "taod/action_cost.h"

struct report_point {
	int64_t t_ms;
	double coverage_pct; /* -1: no anon memory */
	double split_rate;   /* PMD splits per second over the batch interval */
};

struct report_class_change {
	int64_t t_ms;
	char from[32], to[32]; /* "" for unknown */
};

struct report_action {
	int64_t t_ms;
	char kind[24], result[24], policy[64], detail[256];
	int64_t pid;
	uint64_t bytes;
	int err;
	/* A shatter's THPs by outcome, where the kernel counted them (boot-zone TAO). */
	bool shatter_counted;
	uint64_t shattered, shatter_failed, shatter_discarded, shatter_split;
	/* What its split did, on every kernel (schema 8+). */
	bool split_counted;
	uint64_t split_bytes, split_thps, split_partial, pages_migrated;
};

/* Large folios of one size in the window (schema 3+, fentry only). */
struct report_size {
	unsigned size_kb;
	/* Each per-size event of TAOD_SIZE_EVENTS (index SIZE_IDX_*) over
	 * the window; not counted: the database predates its column. */
	uint64_t count[SIZE_NEVENTS];
	bool counted[SIZE_NEVENTS];
	/* Schema 4+: the bytes held in folios of this size at the window's
	 * end (its last row up to then), and their share of anon memory;
	 * -1: not counted. */
	int64_t mapped_bytes;
	double coverage_pct;
};

struct report_cgroup {
	char *path;
	uint64_t cgroup_id;
	int64_t first_seen_ms, last_seen_ms;
	char class[32];
	size_t samples;
	double coverage_now, coverage_min, coverage_mean, coverage_max; /* -1: unknown */
	int64_t anon_bytes, thp_bytes;					/* -1: unknown */
	/* In the window: THP allocations (fault + collapse), and the counters
	 * of the list kept in history by cg_counters index (0 for the others). */
	uint64_t thp_alloc, counts[CG_NCOUNTERS];
	uint64_t thp_alloc_total, pmd_split_total; /* cumulative series, across restarts */
	struct report_point *points;
	size_t npoints;
	struct report_class_change *changes;
	size_t nchanges;
	struct report_action *actions;
	size_t nactions;
	/* The policy's coverage_guarantee at report time (0: none; -1: unknown). */
	double guarantee_pct;
	struct report_size *sizes; /* by size, smallest first */
	size_t nsizes;
};

struct report_zone {
	int node;
	char name[32];
	uint64_t present_pages, managed_pages, free_pages;
	char free_blocks[256]; /* by order, space separated */
	int order;	       /* TAO zoneinfo's `order` line; -1: none */
};

struct report_mthp {
	unsigned size_kb;
	char stat[48];
	uint64_t value; /* latest */
	int64_t delta;	/* latest minus earliest in the window */
};

/* Free blocks by order over all zones at one batch: the fragmentation chart. */
#define REPORT_MAX_ORDERS 16
struct report_frag {
	int64_t t_ms;
	uint64_t blocks[REPORT_MAX_ORDERS];
};

/* A TAO vmstat counter (tao-kernel-abi.md 2a): latest value and its change in the window. */
struct report_counter {
	char stat[48];
	uint64_t value;
	int64_t delta;
};

/* THPs shattered, failed and discarded from the window's start up to one batch. */
struct report_shatter_point {
	int64_t t_ms;
	uint64_t shattered, failed, discarded;
};

/* What a TAO kernel counted; empty on a stock kernel (no counter recorded). */
struct report_tao {
	struct report_counter *counters;
	size_t ncounters;
	struct report_shatter_point *series; /* with_series only */
	size_t nseries;
};

/* A cgroup's shatters in the window, summed over records that counted them. */
struct report_shatter_sum {
	size_t actions; /* counted shatters; 0: none */
	uint64_t shattered, failed, discarded, split;
};

/* The contiguity-pressure states of the window's batches (schema 6 on). */
struct report_pressure {
	size_t batches[3];  /* per state: none, some, full */
	size_t entered[3];  /* times a batch's state rose to some, to full */
	char last_state[8]; /* at the window's last batch; "" without any */
	char last_why[256];
};

/*
 * Actions' cost and benefit (schema 7 on), summed per action kind and
 * policy, or kind and tenant (the cgroup acted on): "actions: cost and
 * benefit" in the report.
 */
struct report_cost_group {
	char name[256]; /* the policy, or the cgroup ("" machine-wide) */
	char kind[24];
	size_t actions;			 /* with a measured cost */
	uint64_t cpu_us[PHASE_MAX];	 /* taod's, summed */
	uint64_t wall_us[PHASE_MAX];	 /* summed */
	uint32_t kernel_present;	 /* bit i: some action counted counter i */
	uint64_t kernel[COST_NCOUNTERS]; /* vmstat deltas, summed */
	size_t followed;		 /* actions with a benefit follow-up */
	size_t free_n;			 /* ... of which free blocks were read */
	int64_t free_regained;		 /* summed over free_n, at each one's last follow-up */
	size_t coverage_n;		 /* ... with a wanting tenant's coverage */
	double coverage_change;		 /* mean over coverage_n, points */
	size_t fallback_n;		 /* ... that followed wanting tenants */
	double fallback_rate;		 /* mean over fallback_n, per second */
};

struct report_costs {
	struct report_cost_group *by_policy, *by_tenant;
	size_t npolicy, ntenant;
};

struct report {
	char db[PATH_MAX];
	int64_t generated_ms, since_ms, until_ms;
	int64_t first_sample_ms, last_sample_ms; /* 0: none */
	/* The last batch written whole (schema 9+; 0: none known, then the
	 * last sample's): a batch is written in slices over ticks. */
	int64_t last_batch_ms;
	size_t batches;
	int64_t *run_starts; /* daemon (re)starts in the window */
	size_t nruns;
	uint64_t thp_alloc, counts[CG_NCOUNTERS]; /* over the reported cgroups, as in a cgroup */
	struct report_zone *zones;
	size_t nzones;
	struct report_mthp *mthp;
	size_t nmthp;
	struct report_cgroup *cgroups;
	size_t ncgroups;
	struct report_frag *frag; /* with_series only */
	size_t nfrag;
	int frag_orders; /* orders seen */
	struct report_tao tao;
	struct report_pressure pressure;
	struct report_costs costs;
	size_t paths_cut; /* paths over REPORT_MAX_PATH, shown cut in the middle */
	/* Table and HTML: every cgroup (taoctl report --all), not only those
	 * that matter (report_shown); the caller sets it after report_load. */
	bool all;
};

/* A cgroup path longer than this (bytes) is cut in the middle to this. */
#define REPORT_MAX_PATH 65536

struct report_query {
	const char *db_path;
	int64_t since_ms, until_ms;
	const char *glob; /* NULL: all */
	bool with_series; /* per-batch points, for charts */
};

/* Reads the database read-only. 0, or -errno with @err saying why. */
int report_load(const struct report_query *q, struct report *r, char *err, size_t err_len);
void report_free(struct report *r);
double report_split_ratio(const struct report_cgroup *c);
/* The TAO counter named @stat (vmstat name), or NULL where none was recorded. */
const struct report_counter *report_tao_counter(const struct report *r, const char *stat);
/* HVO: THPs optimized and vmemmap bytes saved; false where the kernel does not count it. */
bool report_hvo(const struct report *r, uint64_t *pages, uint64_t *saved_bytes);
struct report_shatter_sum report_cgroup_shatter(const struct report_cgroup *c);
/* The batches of the window with a pressure state; 0 before schema 6. */
size_t report_pressure_batches(const struct report *r);
/* Still there at the window's last batch (else removed, or taod stopped seeing it). */
bool report_cgroup_present(const struct report *r, const struct report_cgroup *c);

/* Why a cgroup needs attention, most pressing first; the last two do not. */
enum report_concern {
	CONCERN_ABUSER,
	CONCERN_MISUSER,
	CONCERN_MISSED, /* mean coverage below its guarantee */
	CONCERN_ACTED,	/* taod acted on it in the window */
	CONCERN_ACTIVE, /* THP events in the window */
	CONCERN_IDLE,
};
enum report_concern report_concern(const struct report_cgroup *c);

/*
 * Indices of r->cgroups by concern (report_order.c): abusers, misusers,
 * missed guarantees, acted on, the active rest (the busiest first), idle
 * ones; within each the higher split ratio, then more splits, then the
 * path. malloc'd; NULL on ENOMEM.
 */
size_t *report_concern_order(const struct report *r);
/*
 * The cgroups the table and the page show, in concern order: with r->all
 * every one; else those that need attention (abusers, misusers, missed
 * guarantees, any acted on, removed ones too) and the BUSIEST_SHOWN
 * present ones with the most THP allocations and splits. Idle, removed and
 * quieter cgroups are left out: r->ncgroups - *n of them. malloc'd; NULL
 * on ENOMEM.
 */
size_t *report_shown(const struct report *r, size_t *n);
/* "N of M cgroups left out ... (--all shows every one)" between @before
 * and @after, when report_shown showed only @shown of them; else nothing. */
void report_left_out(FILE *f, const struct report *r, size_t shown, const char *before,
		     const char *after);

int report_write_table(FILE *f, const struct report *r);
int report_write_json(FILE *f, const struct report *r);
int report_write_csv(FILE *f, const struct report *r);
/* CSV of one line per cgroup and folio size with events in the window. */
int report_write_sizes_csv(FILE *f, const struct report *r);
int report_write_html(FILE *f, const struct report *r);

/* CSV field quoting (RFC 4180) and HTML text escaping. */
void csv_field(FILE *f, const char *s);
void html_text(FILE *f, const char *s);

/*
 * SVG line chart of coverage and split rate with action marks (svg_chart.c)
 * over @r's window; its lines break where taod was down (r->run_starts).
 */
void svg_chart(FILE *f, const struct report *r, const struct report_cgroup *c);
/* Machine-wide free blocks by order over time (log scale), one line per order. */
void svg_fragmentation(FILE *f, const struct report *r);
/* TAO: THPs shattered, failed, discarded since the window's start, one line each. */
void svg_shatter(FILE *f, const struct report *r);
/* The line colour of outcome @i (0 shattered, 1 failed, 2 discarded) in that chart. */
const char *svg_shatter_color(int i);
/* The line colour of @order in that chart, for legends. */
const char *svg_order_color(int order);
/* The colour of an action's mark by its result ("done", "failed", ...; others share one). */
const char *svg_result_color(const char *result);
/* The chart's legend as a <p class="legend">: its lines, and with @actions the marks by result. */
void svg_chart_legend(FILE *f, bool actions);
/* One legend key: a swatch of @color and @label in legible text. */
void svg_legend_key(FILE *f, const char *color, const char *label);
/* Mean coverage in the window below the cgroup's guarantee. */
bool report_guarantee_missed(const struct report_cgroup *c);

#endif
