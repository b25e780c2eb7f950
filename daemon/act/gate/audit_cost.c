// SPDX-License-Identifier: GPL-2.0
/* Cost and benefit as audit JSON (audit_cost.h). */
#include <json-c/json.h>

#include "audit_cost.h"
#include "common/json_fields.h"

static struct json_object *phases_json(const uint64_t us[PHASE_MAX])
{
	struct json_object *o = json_object_new_object();

	for (int p = 0; p < PHASE_MAX; p++)
		json_add_double(o, action_phase_name(p), us[p] / 1000.0);
	return o;
}

static struct json_object *kernel_json(const struct action_cost *c)
{
	struct json_object *o = json_object_new_object();

	for (unsigned i = 0; i < COST_NCOUNTERS; i++)
		if (c->kernel_present & (1u << i))
			json_add_u64(o, cost_counter_name(i), c->kernel[i]);
	return o;
}

struct json_object *action_cost_json(const struct action_cost *c)
{
	struct json_object *o = json_object_new_object();

	json_add(o, "cpu_ms", phases_json(c->cpu_us));
	json_add(o, "wall_ms", phases_json(c->wall_us));
	json_add(o, "kernel", kernel_json(c));
	json_add(o, "free_pmd_before",
		 c->free_known ? json_object_new_uint64(c->free_pmd_before) : NULL);
	json_add(o, "free_pmd_after",
		 c->free_known ? json_object_new_uint64(c->free_pmd_after) : NULL);
	return o;
}

struct json_object *action_benefit_json(const struct action_benefit *b)
{
	struct json_object *o = json_object_new_object();

	json_add_u64(o, "after_s", b->after_ms / 1000);
	json_add_bool(o, "final", b->final);
	json_add(o, "free_pmd_regained",
		 b->free_known ? json_object_new_int64(b->free_pmd_regained) : NULL);
	json_add_u64(o, "wanting_tenants", b->wanting);
	json_add(o, "coverage_change_pct",
		 b->coverage_n ? json_new_double(b->coverage_change) : NULL);
	json_add(o, "fallbacks_per_s", b->wanting ? json_new_double(b->fallback_rate) : NULL);
	return o;
}
