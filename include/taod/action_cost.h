/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What an action cost and what it bought (issue 25 part 4): taod's own CPU
 * and wall time per phase, the kernel's work as vmstat deltas around it,
 * the free PMD-order blocks before and after; and, minutes later, the
 * benefit seen. Carried on the action record decide and act share.
 * Contract: decide -> act -> report (audit, history, report, status).
 */
#ifndef TAOD_ACTION_COST_H
#define TAOD_ACTION_COST_H

#include <stdbool.h>
#include <stdint.h>

/*
 * The kernel's work an action may cause, by its /proc/vmstat name: a row
 * here is a counter measured, audited, kept in history (action_costs rows,
 * no migration) and summed in the report.
 */
#define TAOD_COST_COUNTERS(X)                                                                      \
	X(pgmigrate_success)                                                                       \
	X(compact_stall)                                                                           \
	X(compact_fail)                                                                            \
	X(compact_success)                                                                         \
	X(compact_migrate_scanned)                                                                 \
	X(compact_free_scanned)                                                                    \
	X(compact_isolated)                                                                        \
	X(thp_split_page)                                                                          \
	X(thp_split_pmd)                                                                           \
	X(thp_collapse_alloc)

#define TAOD_COST_ENUM_(name) COST_##name,
enum cost_counter { TAOD_COST_COUNTERS(TAOD_COST_ENUM_) COST_NCOUNTERS };
#undef TAOD_COST_ENUM_

static inline const char *cost_counter_name(unsigned i)
{
#define TAOD_COST_NAME_(name) #name,
	static const char *const names[] = {TAOD_COST_COUNTERS(TAOD_COST_NAME_)};
#undef TAOD_COST_NAME_
	return i < COST_NCOUNTERS ? names[i] : "?";
}

/*
 * Where taod's time went. The lever is the action's own work (a shatter's
 * split, a collapse's MADV_COLLAPSE, a limit's write): all of the action
 * but the compaction and per-CPU drain that may follow a shatter.
 */
enum action_phase { PHASE_LEVER, PHASE_COMPACTION, PHASE_DRAIN, PHASE_MAX };

static inline const char *action_phase_name(enum action_phase p)
{
	return p == PHASE_COMPACTION ? "compaction" : p == PHASE_DRAIN ? "drain" : "lever";
}

struct action_cost {
	bool measured;		    /* the backend was called; false: suppressed, nothing to cost */
	uint64_t cpu_us[PHASE_MAX]; /* taod's thread CPU time (user + system) */
	uint64_t wall_us[PHASE_MAX]; /* monotonic */
	/* vmstat deltas around the action (machine-wide: what else ran is in
	 * them too); bit i of kernel_present: counter i was in vmstat. */
	uint32_t kernel_present;
	uint64_t kernel[COST_NCOUNTERS];
	bool free_known; /* buddyinfo was read before and after */
	uint64_t free_pmd_before, free_pmd_after;
};

/*
 * What an action bought, some time after it: free PMD blocks regained
 * since just before it, and the tenants that wanted THPs then: their
 * coverage change (percentage points, mean) and THP fault fallbacks per
 * second since.
 */
struct action_benefit {
	uint64_t id; /* the audit record's */
	uint64_t after_ms;
	bool final; /* the last follow-up of the action */
	bool free_known;
	int64_t free_pmd_regained;
	unsigned wanting;	/* tenants followed (wanting at the action) */
	unsigned coverage_n;	/* ... of which coverage was read both times */
	double coverage_change; /* mean, points; 0 when coverage_n is 0 */
	double fallback_rate;	/* fallbacks per second over those tenants */
};

#endif
