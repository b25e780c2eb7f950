// SPDX-License-Identifier: GPL-2.0
/*
 * The benefit flag for `status`: each action kind whose actions were
 * followed up, and whether its last ones bought next to nothing, in
 * numbers (act/benefit_flag.h).
 */
#include <json-c/json.h>

#include "commands.h"
#include "act/act.h"
#include "pipeline.h"
#include "common/json_fields.h"

struct json_object *benefit_status_json(const struct taod *d)
{
	struct json_object *list = json_object_new_array();

	for (int k = 0; k < ACTION_KIND_MAX && d->actor; k++) {
		struct json_object *o;
		unsigned followed;
		char why[320];
		bool flat = actor_benefit_flag(d->actor, k, &followed, why, sizeof(why));

		if (!followed)
			continue;
		o = json_object_new_object();
		json_add_str(o, "action", action_kind_name(k));
		json_add_u64(o, "followed", followed);
		json_add_bool(o, "near_zero", flat);
		json_add_str(o, "why", why);
		json_object_array_add(list, o);
	}
	return list;
}
