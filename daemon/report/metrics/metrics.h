/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Prometheus text exposition (format 0.0.4) of what taod knows: for
 * `taoctl metrics` and for a node_exporter textfile replaced atomically.
 */
#ifndef TAOD_METRICS_H
#define TAOD_METRICS_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "account/cgroup_state.h"
#include "account/contiguity_pressure.h"
#include "account/machine_stats.h"
#include "common/action_kinds.h"
#include "common/sink_health.h"

struct audit_log;
struct cost_totals;

/* A kind's near-zero-benefit flag as the metrics take it (act/gate/benefit_flag.h). */
enum metrics_benefit_flag {
	METRICS_BENEFIT_UNKNOWN, /* no action of the kind followed up: no series */
	METRICS_BENEFIT_WORTH,
	METRICS_BENEFIT_NEAR_ZERO,
};

/* A judged cgroup (a tenant root) as the metrics show it. */
struct metrics_judged {
	const char *cgroup;
	const char *class_name; /* as `taoctl abusers` prints it */
	bool scored;		/* judged at least once: @score is its last */
	double score;
	double guarantee_ratio;	 /* its policy's coverage guarantee, 0 to 1; < 0: none */
	uint64_t shatters_asked; /* shatters decide asked for it since taod started */
};

/* The @i-th judged cgroup into @out; false to skip @i (not a judged tenant). */
typedef bool (*metrics_judged_fn)(const void *ctx, size_t i, struct metrics_judged *out);

struct metrics_input {
	const struct cgroup_table *cgroups;
	const uint64_t *bpf_stats; /* TAOD_STAT_MAX entries */
	uint64_t ticks;
	uint64_t last_tick_cost_us;
	uint64_t start_wall_ms;
	const char *version;
	const char *kernel_kind;
	const char *observation_mode;
	const struct machine_stats *machine;   /* NULL: no machine figures */
	const struct pressure_state *pressure; /* NULL: no contiguity-pressure series */
	bool history_enabled; /* the history database is open and its writes succeed */
	bool down;	      /* the last textfile, at a clean exit: taod_up 0 */
	/* The output sinks (NULL: none); an off sink has no taod_sink_* series. */
	const struct sink_health *sinks[SINK_MAX];
	const struct audit_log *audit;	 /* actions by kind and result; NULL: none */
	const struct cost_totals *costs; /* actions' costs and benefits; NULL: none */
	enum metrics_benefit_flag benefit_flag[ACTION_KIND_MAX];
	size_t njudged;
	metrics_judged_fn judged;
	const void *judged_ctx;
};

/* Label value escaping: backslash, double quote and newline. */
void prom_escape_label(const char *in, char *out, size_t len);
int metrics_write(FILE *f, const struct metrics_input *in);
/* taod_cgroup_workload_info of every cgroup whose path names a workload. */
void metrics_write_workloads(FILE *f, const struct cgroup_table *t);
/* Whole exposition in a malloc'd string; NULL on failure. */
char *metrics_text(const struct metrics_input *in);
/* Writes a fresh temporary file in the same directory, renamed over @path. */
int metrics_textfile_write(const char *path, const struct metrics_input *in);

#endif
