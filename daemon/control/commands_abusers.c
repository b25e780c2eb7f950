// SPDX-License-Identifier: GPL-2.0
/* `abusers`: misbehaving cgroups, the evidence, and what comes next. */
#include <errno.h>
#include <json-c/json.h>
#include <stdlib.h>
#include <string.h>

#include "taod/commands.h"
#include "taod/protocol.h"

static void put(struct json_object *o, const char *k, struct json_object *v)
{
	json_object_object_add(o, k, v);
}

static struct json_object *ms_since(uint64_t then, uint64_t now)
{
	return json_object_new_uint64(now > then ? now - then : 0);
}

static struct json_object *evidence_json(const struct verdict *v, const struct policy *p)
{
	struct json_object *o = json_object_new_object();
	char text[256];

	verdict_evidence(v, p, text, sizeof(text));
	put(o, "window_ms", json_object_new_uint64(v->span_ms));
	put(o, "thp_alloc", json_object_new_uint64(v->allocs));
	put(o, "pmd_split", json_object_new_uint64(v->splits));
	put(o, "split_ratio", json_object_new_double(v->split_ratio));
	put(o, "max_split_ratio", json_object_new_double(p->max_split_ratio));
	put(o, "score", json_object_new_double(v->score));
	put(o, "judged", json_object_new_boolean(v->judged));
	put(o, "level", json_object_new_string(cg_class_name(v->level)));
	put(o, "coverage_mean", protocol_pct_or_null(v->coverage_mean));
	put(o, "coverage_min", protocol_pct_or_null(v->coverage_min));
	put(o, "coverage_max", protocol_pct_or_null(v->coverage_max));
	put(o, "anon_bytes", json_object_new_uint64(v->anon_bytes));
	put(o, "thp_bytes", json_object_new_uint64(v->thp_bytes));
	put(o, "text", json_object_new_string(text));
	return o;
}

/* Oldest first. */
static struct json_object *history_json(const struct cg_judge *j, uint64_t now)
{
	struct json_object *a = json_object_new_array();

	for (unsigned i = 0; i < j->hist_len; i++) {
		unsigned at = (j->hist_head + DECIDE_HISTORY - j->hist_len + i) % DECIDE_HISTORY;
		const struct judgement *h = &j->hist[at];
		struct json_object *o = json_object_new_object();

		put(o, "ago_ms", ms_since(h->t_ms, now));
		put(o, "level", json_object_new_string(cg_class_name(h->level)));
		put(o, "class", json_object_new_string(cg_class_name(h->cls)));
		put(o, "score", json_object_new_double(h->score));
		put(o, "judged", json_object_new_boolean(h->judged));
		put(o, "strikes", json_object_new_uint64(h->strikes));
		json_object_array_add(a, o);
	}
	return a;
}

static struct json_object *offenders_json(const struct cg_judge *j)
{
	struct json_object *a = json_object_new_array();

	for (unsigned i = 0; i < j->noffenders; i++) {
		const struct offender *t = &j->offenders[i];
		struct json_object *o = json_object_new_object();

		put(o, "pid", json_object_new_uint64(t->pid));
		put(o, "comm", json_object_new_string(t->comm));
		put(o, "thp_fault_alloc", json_object_new_uint64(t->thp_alloc));
		put(o, "pmd_split", json_object_new_uint64(t->pmd_split));
		put(o, "pmd_split_pages", json_object_new_uint64(t->pmd_split_pages));
		json_object_array_add(a, o);
	}
	return a;
}

static struct json_object *next_action_json(const struct taod *d, const struct cg_judge *j,
					    const struct policy *p, uint64_t now)
{
	struct json_object *o;
	enum action_kind kind;
	uint64_t due;

	if (!decide_next_action(j, p, d->kernel.kind == KERNEL_TAO, &kind, &due))
		return NULL;
	o = json_object_new_object();
	put(o, "action", json_object_new_string(action_kind_name(kind)));
	put(o, "due_in_ms", json_object_new_uint64(due > now ? due - now : 0));
	put(o, "if",
	    json_object_new_string(j->cls == CLASS_ABUSER ? "it keeps abusing"
							  : "coverage stays below the guarantee"));
	return o;
}

static struct json_object *last_action_json(const struct cg_judge *j, uint64_t now)
{
	struct json_object *o;

	if (!j->acted)
		return NULL;
	o = json_object_new_object();
	put(o, "action", json_object_new_string(action_kind_name(j->last_action)));
	put(o, "ago_ms", ms_since(j->last_action_ms, now));
	return o;
}

static struct json_object *judge_json(const struct taod *d, const struct cg_judge *j,
				      const struct policy *p, uint64_t now)
{
	struct json_object *o = json_object_new_object();

	put(o, "cgroup", json_object_new_string(j->path));
	put(o, "id", json_object_new_uint64(j->id));
	put(o, "class", json_object_new_string(cg_class_name(j->cls)));
	put(o, "class_for_ms", ms_since(j->class_since_ms, now));
	put(o, "policy", json_object_new_string(p->name));
	put(o, "strikes", json_object_new_uint64(j->strikes));
	put(o, "up_streak", json_object_new_uint64(j->up_streak));
	put(o, "down_streak", json_object_new_uint64(j->down_streak));
	put(o, "restricted", json_object_new_boolean(j->restricted));
	put(o, "cooldown_left_ms",
	    json_object_new_uint64(j->cooldown_until_ms > now ? j->cooldown_until_ms - now : 0));
	put(o, "next_judgement_in_ms",
	    json_object_new_uint64(j->next_judge_ms > now ? j->next_judge_ms - now : 0));
	put(o, "evidence", j->has_verdict ? evidence_json(&j->last, p) : NULL);
	put(o, "history", history_json(j, now));
	put(o, "offenders", offenders_json(j));
	put(o, "next_action", next_action_json(d, j, p, now));
	put(o, "last_action", last_action_json(j, now));
	return o;
}

struct json_object *cmd_abusers(struct taod *d, struct json_object *req)
{
	struct json_object *o, *list = json_object_new_array();
	uint64_t now = monotonic_ms();
	json_bool all = 0;
	struct json_object *a = protocol_arg(req, "all");

	if (a && !json_object_is_type(a, json_type_boolean)) {
		json_object_put(list);
		return protocol_error("args.all must be true or false");
	}
	all = a && json_object_get_boolean(a);
	for (size_t i = 0; i < d->decide.n; i++) {
		const struct cg_judge *j = d->decide.v[i];
		const struct policy *p = policy_find(&d->cfg->policies, j->policy);

		if (!j->path) /* out of memory when it was first seen */
			continue;
		if (!p) /* its policy went away in a reload: judged anew next window */
			p = policy_lookup(&d->cfg->policies, j->path, NULL);
		if (all || j->cls != CLASS_GOOD)
			json_object_array_add(list, judge_json(d, j, p, now));
	}
	o = protocol_ok();
	put(o, "cgroups", list);
	return o;
}

/* The THP demand of guaranteed cgroups at the last look, and the resizes asked. */
static struct json_object *zone_demand_json(const struct zone_demand *z)
{
	struct json_object *o = json_object_new_object();

	put(o, "demand_bytes", json_object_new_uint64(z->demand_bytes));
	put(o, "guaranteed_cgroups", json_object_new_uint64(z->guaranteed));
	put(o, "target_bytes", json_object_new_uint64(z->view.target_bytes));
	put(o, "resize_requests", json_object_new_uint64(z->requests));
	return o;
}

struct json_object *decide_status_json(const struct taod *d)
{
	struct json_object *o = json_object_new_object();
	uint64_t count[CLASS_MAX] = {0};

	for (size_t i = 0; i < d->decide.n; i++)
		count[d->decide.v[i]->cls]++;
	put(o, "policies", json_object_new_uint64(d->cfg->policies.n));
	put(o, "cgroups", json_object_new_uint64(d->decide.n));
	for (int c = 0; c < CLASS_MAX; c++)
		put(o, cg_class_name(c), json_object_new_uint64(count[c]));
	put(o, "judgements", json_object_new_uint64(d->decide.judgements));
	put(o, "requests", json_object_new_uint64(d->decide.requests));
	if (d->kernel.kind == KERNEL_TAO)
		put(o, "zones", zone_demand_json(&d->decide.zones));
	return o;
}
