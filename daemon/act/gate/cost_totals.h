/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What actions cost and bought since taod started, per kind: the sums
 * the metrics expose (taod_action_*). The audit log adds each measured
 * record and each final follow-up; nothing here reads the kernel.
 */
#ifndef TAOD_ACT_COST_TOTALS_H
#define TAOD_ACT_COST_TOTALS_H

#include <stdint.h>

#include "taod/action.h"

struct cost_totals {
	uint64_t measured[ACTION_KIND_MAX]; /* actions whose cost was measured */
	uint64_t cpu_us[ACTION_KIND_MAX][PHASE_MAX];
	uint64_t wall_us[ACTION_KIND_MAX][PHASE_MAX];
	/* bit i: counter i was in vmstat at some action of the kind */
	uint32_t kernel_present[ACTION_KIND_MAX];
	uint64_t kernel[ACTION_KIND_MAX][COST_NCOUNTERS];
	uint64_t followed[ACTION_KIND_MAX];	/* final follow-ups */
	uint64_t free_known[ACTION_KIND_MAX];	/* ... of which free blocks were read */
	int64_t free_regained[ACTION_KIND_MAX]; /* summed over those */
};

/* Adds @c (if measured) to kind @kind's sums; an unknown kind: nothing. */
void cost_totals_add(struct cost_totals *t, enum action_kind kind, const struct action_cost *c);
/* Adds @b if it is an action's final follow-up. */
void cost_totals_benefit(struct cost_totals *t, enum action_kind kind,
			 const struct action_benefit *b);

#endif
