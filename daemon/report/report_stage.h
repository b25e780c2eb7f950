/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The report stage's part of a tick (daemon/report/report_stage.c): a
 * history batch every [history] every ticks, the metrics textfile every
 * tick. It keeps its own state and is handed what it reads (the
 * configuration may be replaced by a reload between ticks).
 */
#ifndef TAOD_REPORT_STAGE_H
#define TAOD_REPORT_STAGE_H

#include <stdint.h>

#include "config/config.h"
#include "report/history/history.h"
#include "report/history/history_sink.h"
#include "report/metrics/metrics.h"

struct report_stage {
	struct history_sink history;   /* its .h is NULL: no history (off or unusable) */
	struct machine_stats *machine; /* zones and mTHP stats, read when needed */
	uint64_t batches;
	uint64_t last_tick;	     /* tick of the last batch due (written or lost) */
	bool batch_open;	     /* a batch is written a slice a tick: more is left */
	struct sink_health textfile; /* the metrics textfile's writes, errors logged once */
	bool opened;		     /* only an opened stage leaves a last textfile at close */
};

/* What one tick hands the report stage. */
struct report_tick {
	const struct taod_config *cfg;
	const struct cgroup_table *cgroups;
	uint64_t ticks;
	uint64_t started_us;	   /* the tick's start (CLOCK_MONOTONIC), set by the tick */
	history_class_fn class_of; /* decide's class of a cgroup */
	void *class_ctx;
	/* The figures of the metrics textfile; the stage fills in its own. */
	struct metrics_input metrics;
};

/* Warns and goes on without history when the database is unusable (retried every batch). */
void report_stage_open(struct report_stage *rs, const struct taod_config *cfg,
		       uint64_t start_wall_ms);
void report_stage_tick(struct report_stage *rs, struct report_tick *t);
/*
 * Writes a last batch when ticks ran since the last one, and a last
 * metrics textfile saying taod_up 0.
 */
void report_stage_close(struct report_stage *rs, struct report_tick *t);
/* actor_record_fn: records an audited action in the history (@ctx: report_stage). */
struct action_record;
void report_stage_record_action(void *ctx, const struct action_record *rec);
/* benefit_hook_fn: records an action's benefit follow-up in the history. */
struct action_benefit;
void report_stage_record_benefit(void *ctx, const struct action_benefit *b);
/* The health of the history database and of the metrics textfile. */
const struct sink_health *report_stage_sink(const struct report_stage *rs, enum sink_id id);
/* Whether the history database is open and its last write succeeded. */
bool report_stage_history_up(const struct report_stage *rs);

#endif
