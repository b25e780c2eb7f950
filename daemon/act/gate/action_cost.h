/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Measuring what an action costs (taod/action_cost.h): the actor brackets
 * the backend's call with action_cost_begin()/_end(); the compaction and
 * drain after a shatter charge their own phases through act_ctx's cost.
 */
#ifndef TAOD_ACT_ACTION_COST_H
#define TAOD_ACT_ACTION_COST_H

#include <stdint.h>

#include "act/act_backend.h"
#include "taod/action_cost.h"

/* A phase's start: thread CPU time and monotonic time, microseconds. */
struct cost_clock {
	uint64_t cpu_us, wall_us;
};

/* The cost counters as one vmstat read found them; bit i: counter i read. */
struct cost_vmstat {
	uint32_t present;
	uint64_t v[COST_NCOUNTERS];
};

/* What the actor holds across one backend call. */
struct cost_run {
	struct cost_clock clock;
	struct cost_vmstat before;
	bool vmstat_ok;
};

void cost_clock_start(struct cost_clock *c);
/* Adds the time since @c started to phase @p of @cost (NULL: nothing). */
void cost_clock_charge(struct action_cost *cost, enum action_phase p, const struct cost_clock *c);

/* Fills @out from vmstat text; a counter the text lacks stays unset. */
void cost_vmstat_parse(const char *text, struct cost_vmstat *out);
/*
 * The deltas @after - @before of counters both reads had (a counter that
 * went backwards counts 0) into @cost->kernel and kernel_present.
 */
void cost_kernel_delta(struct action_cost *cost, const struct cost_vmstat *before,
		       const struct cost_vmstat *after);
/*
 * Phase PHASE_LEVER from the whole: @total_cpu_us and @total_wall_us less
 * what the compaction and drain phases already hold (never below 0).
 */
void cost_lever_from_total(struct action_cost *cost, uint64_t total_cpu_us, uint64_t total_wall_us);

/* Before the backend: clocks, vmstat and free PMD blocks (into @cost). */
void action_cost_begin(struct cost_run *r, const struct kernel_paths *k, struct action_cost *cost);
/* After it: the deltas, the free blocks after, the lever's share; measured. */
void action_cost_end(struct cost_run *r, const struct kernel_paths *k, struct action_cost *cost);

#endif
