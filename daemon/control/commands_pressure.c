// SPDX-License-Identifier: GPL-2.0
/* The contiguity-pressure signal for `status`: the state, why, each input. */
#include <json-c/json.h>

#include "commands.h"
#include "common/json_fields.h"
#include "common/clock.h"

static struct json_object *input_json(const struct taod *d, enum pressure_input i)
{
	const struct pressure_input_row *row = pressure_input_row(i);
	const struct pressure_state *s = &d->pressure;
	struct json_object *o = json_object_new_object();
	bool present = s->present & (1u << i);

	json_add_str(o, "name", row->name);
	json_add_str(o, "source", row->source);
	json_add_bool(o, "present", present);
	json_add(o, "value", present ? json_object_new_double(s->value[i]) : NULL);
	json_add_str(o, "unit", row->unit);
	json_add_str(o, "level", pressure_level_name(s->level[i]));
	json_add_u64(o, "some", d->cfg->pressure.some[i]);
	json_add_u64(o, "full", d->cfg->pressure.full[i]);
	json_add_bool(o, "holds", s->why & (1u << i));
	return o;
}

static struct json_object *places_json(const struct pressure_state *s)
{
	struct json_object *a = json_object_new_array();

	for (size_t i = 0; i < s->nplaces; i++) {
		struct json_object *o = json_object_new_object();

		json_add_str(o, "name", s->places[i].name);
		json_add_u64(o, "free_pmd_blocks", s->places[i].free_pmd_blocks);
		json_add_str(o, "state", pressure_level_name(s->places[i].h.state));
		json_object_array_add(a, o);
	}
	return a;
}

struct json_object *pressure_status_json(const struct taod *d)
{
	const struct pressure_state *s = &d->pressure;
	struct json_object *o = json_object_new_object(), *in = json_object_new_array();
	char why[512];

	pressure_why_text(s, &d->cfg->pressure, why, sizeof(why));
	json_add_str(o, "state", pressure_level_name(s->machine.state));
	json_add_u64(o, "for_ms", s->steps ? monotonic_ms() - s->machine.since_ms : 0);
	json_add_str(o, "why", why);
	for (int i = 0; i < PIN_MAX; i++)
		json_object_array_add(in, input_json(d, i));
	json_add(o, "inputs", in);
	json_add(o, "places", places_json(s));
	json_add_u64(o, "wanting_tenants", d->decide.wanting);
	json_add_u64(o, "held_strikes", d->decide.held);
	json_add_str(o, "read_error", d->pressure_err);
	return o;
}
