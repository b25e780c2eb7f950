/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The cost and benefit of an action as audit JSON (taod/action_cost.h):
 * the record's "cost" object, and the follow-up line that says, minutes
 * later, what the action bought.
 */
#ifndef TAOD_ACT_AUDIT_COST_H
#define TAOD_ACT_AUDIT_COST_H

#include "taod/action.h"

struct json_object;

/* {"cpu_ms": {phase: ms}, "wall_ms": {...}, "kernel": {counter: delta},
 * "free_pmd_before", "free_pmd_after"}; a counter vmstat lacked is left
 * out, unread free blocks are null. New object (never NULL on success). */
struct json_object *action_cost_json(const struct action_cost *c);

/* The benefit's fields: after_s, final, free_pmd_regained, wanting_tenants,
 * coverage_change_pct and fallbacks_per_s (null where not measured). */
struct json_object *action_benefit_json(const struct action_benefit *b);

#endif
