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

#include "taod/config.h"
#include "taod/history.h"
#include "taod/metrics.h"

struct report_stage {
	struct history *history;       /* NULL: no history (off or unusable) */
	struct machine_stats *machine; /* zones and mTHP stats, read when needed */
	uint64_t batches;
	uint64_t last_tick; /* tick of the last batch written */
	int textfile_err;   /* last metrics textfile error, logged once */
};

/* What one tick hands the report stage. */
struct report_tick {
	const struct taod_config *cfg;
	const struct cgroup_table *cgroups;
	uint64_t ticks;
	history_class_fn class_of; /* decide's class of a cgroup */
	void *class_ctx;
	/* The figures of the metrics textfile; the stage fills in its own. */
	struct metrics_input metrics;
};

/* Warns and goes on without history when the database is unusable. */
void report_stage_open(struct report_stage *rs, const struct taod_config *cfg,
		       uint64_t start_wall_ms);
void report_stage_tick(struct report_stage *rs, struct report_tick *t);
/* Writes a last batch when ticks ran since the last one. */
void report_stage_close(struct report_stage *rs, struct report_tick *t);
/* actor_record_fn: records an audited action in the history (@ctx: report_stage). */
struct action_record;
void report_stage_record_action(void *ctx, const struct action_record *rec);

#endif
