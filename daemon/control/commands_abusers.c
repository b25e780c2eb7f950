// SPDX-License-Identifier: GPL-2.0
/* `abusers`: misbehaving cgroups, the evidence, and what comes next. */
#include <errno.h>
#include <json-c/json.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "act/act.h"
#include "commands.h"
#include "common/json_fields.h"
#include "decide/policy_match.h"
#include "taod/protocol.h"
#include "observe/size_events.h"
#include "observe/split_cause.h"
#include "common/workload_name.h"

static struct json_object *ms_since(uint64_t then, uint64_t now)
{
	return json_object_new_uint64(now > then ? now - then : 0);
}

/*
 * The tenant's folio size mix: per size (orders 2 and up), the folios its
 * member cgroups counted of each per-size event, cumulative.
 */
static struct json_object *size_mix_json(const struct taod *d, const struct cg_judge *j)
{
	struct taod_cg_sizes sum = {0};

	for (size_t i = 0; i < d->decide.n; i++) {
		const struct cg_judge *m = d->decide.v[i];
		const struct cgroup_entry *e =
		    m->tenant_id == j->id ? cgroup_table_find(&d->cgroups, m->id) : NULL;

		if (e)
			size_events_add(&sum, &e->sizes);
	}
	return protocol_size_mix(&sum);
}

static struct json_object *evidence_json(const struct taod *d, const struct cg_judge *j,
					 const struct policy *p)
{
	const struct verdict *v = &j->last;
	struct json_object *o = json_object_new_object();
	char text[256];

	verdict_evidence(v, p, text, sizeof(text));
	json_add_u64(o, "window_ms", v->span_ms);
	json_add_u64(o, "thp_alloc", v->allocs);
	json_add_u64(o, "pmd_split", v->splits);
	json_add_double(o, "split_ratio", v->split_ratio);
	json_add_u64(o, "horizon_ms", p->horizon_ms);
	json_add_double(o, "given_thps", v->given);
	json_add_double(o, "held_peak_thps", v->held_peak);
	json_add_double(o, "broken_thps", v->broken);
	json_add_double(o, "waste", v->waste);
	json_add_double(o, "max_split_ratio", p->max_split_ratio);
	json_add_double(o, "score", v->score);
	json_add_u64(o, "unanswered_split_pages", v->fresh_pages);
	json_add_u64(o, "member_cgroups", v->members);
	json_add_bool(o, "judged", v->judged);
	json_add_str(o, "level", cg_class_name(v->level));
	json_add(o, "coverage_mean", protocol_pct_or_null(v->coverage_mean));
	json_add(o, "coverage_min", protocol_pct_or_null(v->coverage_min));
	json_add(o, "coverage_max", protocol_pct_or_null(v->coverage_max));
	json_add_u64(o, "anon_bytes", v->anon_bytes);
	json_add_u64(o, "thp_bytes", v->thp_bytes);
	json_add_str_or_null(o, "top_cause",
			     j->top_cause < 0 ? NULL : split_cause_name(j->top_cause));
	json_add_u64(o, "top_cause_splits", j->top_cause_splits);
	json_add_u64(o, "task_splits", j->task_splits);
	json_add_str(o, "text", text);
	json_add_str(o, "sizes", policy_sizes_name(p->sizes));
	json_add_u64(o, "mthp_alloc_bytes", j->acc.mthp_alloc_bytes);
	json_add_u64(o, "mthp_broken_bytes", j->acc.mthp_broken_bytes);
	json_add(o, "size_mix", size_mix_json(d, j));
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

		json_add(o, "ago_ms", ms_since(h->t_ms, now));
		json_add_str(o, "level", cg_class_name(h->level));
		json_add_str(o, "class", cg_class_name(h->cls));
		json_add_double(o, "score", h->score);
		json_add_bool(o, "judged", h->judged);
		json_add_u64(o, "strikes", h->strikes);
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

		json_add_u64(o, "pid", t->pid);
		json_add_str(o, "comm", t->comm);
		json_add_u64(o, "thp_fault_alloc", t->thp_alloc);
		json_add_u64(o, "pmd_split", t->pmd_split);
		json_add_u64(o, "pmd_split_pages", t->pmd_split_pages);
		json_add_str_or_null(o, "top_cause",
				     t->top_cause < 0 ? NULL : split_cause_name(t->top_cause));
		json_object_array_add(a, o);
	}
	return a;
}

/* A TAO kernel without memory.thp_zones: no restrict rung, no GRANT. */
static bool no_memcg_zones(const struct taod *d)
{
	return d->kernel.kind == KERNEL_TAO && !kernel_has(&d->kernel, TAO_MEMCG_THP_ZONES);
}

/* act_when = need holds a climb past warn while nobody needs contiguity. */
static bool held_by_need(const struct taod *d, const struct policy *p, enum action_kind kind)
{
	return !p->act_always && (kind == ACTION_RESTRICT || kind == ACTION_SHATTER) &&
	       d->pressure.machine.state == PRESSURE_NONE && !d->decide.wanting;
}

static struct json_object *next_action_json(const struct taod *d, const struct cg_judge *j,
					    const struct policy *p, uint64_t now)
{
	struct json_object *o;
	enum action_kind kind;
	uint64_t due;

	if (!decide_next_action(j, p, d->kernel.kind == KERNEL_TAO, no_memcg_zones(d), &kind, &due))
		return NULL;
	o = json_object_new_object();
	json_add_str(o, "action", action_kind_name(kind));
	json_add_u64(o, "due_in_ms", due > now ? due - now : 0);
	json_add_str(o, "if",
		     j->cls < verdict_strike_class(p) ? "coverage stays below the guarantee"
		     : held_by_need(d, p, kind)
			 ? "it breaks more THPs and contiguity pressure comes or a tenant wants "
			   "THPs (act_when = need: a warning until then)"
			 : "it breaks more THPs");
	return o;
}

static struct json_object *last_action_json(const struct cg_judge *j, uint64_t now)
{
	struct json_object *o;

	if (!j->acted)
		return NULL;
	o = json_object_new_object();
	json_add_str(o, "action", action_kind_name(j->last_action));
	json_add(o, "ago_ms", ms_since(j->last_action_ms, now));
	return o;
}

struct json_object *reward_json(const struct taod *d, const char *cgroup)
{
	struct json_object *o;
	struct reward_state r;

	if (!d->actor || actor_reward_state(d->actor, cgroup, &r))
		return NULL;
	o = json_object_new_object();
	json_add_str(o, "action", action_kind_name(ACTION_COLLAPSE));
	json_add_str(o, "result", action_result_name(r.result));
	json_add_u64(o, "ago_ms", r.ago_ms);
	json_add_u64(o, "collapsed_bytes", r.gained_bytes);
	json_add_u64(o, "retry_in_ms", r.retry_in_ms);
	json_add_str(o, "detail", r.detail);
	return o;
}

static struct json_object *judge_json(const struct taod *d, const struct cg_judge *j,
				      const struct policy *p, uint64_t now)
{
	struct json_object *o = json_object_new_object();
	struct workload_name w;

	json_add_str(o, "cgroup", j->path);
	workload_name_parse(j->path, &w);
	workload_name_json(o, &w);
	json_add_u64(o, "id", j->id);
	json_add_str(o, "class", cg_class_name(j->cls));
	json_add(o, "class_for_ms", ms_since(j->class_since_ms, now));
	json_add_str(o, "policy", p->name);
	json_add_u64(o, "strikes", j->strikes);
	json_add_u64(o, "up_streak", j->up_streak);
	json_add_u64(o, "down_streak", j->down_streak);
	json_add_bool(o, "restricted", j->restricted);
	json_add_u64(o, "cooldown_left_ms",
		     j->cooldown_until_ms > now ? j->cooldown_until_ms - now : 0);
	json_add_u64(o, "next_judgement_in_ms",
		     j->next_judge_ms > now ? j->next_judge_ms - now : 0);
	json_add(o, "evidence", j->has_verdict ? evidence_json(d, j, p) : NULL);
	json_add(o, "history", history_json(j, now));
	json_add(o, "offenders", offenders_json(j));
	json_add(o, "next_action", next_action_json(d, j, p, now));
	json_add(o, "last_action", last_action_json(j, now));
	json_add(o, "reward", reward_json(d, j->path));
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

		if (!j->path || j->tenant_id != j->id) /* members: see their tenant */
			continue;
		if (!p) /* its policy went away in a reload: judged anew next window */
			p = policy_lookup(&d->cfg->policies, j->path, NULL);
		if (all || j->cls != CLASS_GOOD)
			json_object_array_add(list, judge_json(d, j, p, now));
	}
	o = protocol_ok();
	json_add(o, "cgroups", list);
	return o;
}

struct json_object *tenant_verdict_json(const struct taod *d, uint64_t cgroup_id)
{
	const struct cg_judge *j = decide_find(&d->decide, cgroup_id);
	const struct cg_judge *root = j ? decide_find(&d->decide, j->tenant_id) : NULL;
	const struct policy *p;
	struct json_object *o;
	char held[96];

	if (!root || !root->path)
		return NULL;
	o = json_object_new_object();
	json_add_str(o, "tenant", root->path);
	/* Never judged: no class yet, not "good". */
	json_add_str_or_null(o, "class", root->has_verdict ? cg_class_name(root->cls) : NULL);
	json_add_str(o, "policy", root->policy);
	p = policy_find(&d->cfg->policies, root->policy);
	json_add_str_or_null(o, "held",
			     p && hysteresis_held(root, p, held, sizeof(held)) ? held : NULL);
	if (root->has_verdict) {
		json_add_double(o, "score", root->last.score);
		json_add_double(o, "waste", root->last.waste);
		json_add_bool(o, "judged", root->last.judged);
		json_add_bool(o, "wanting", root->last.wanting);
	}
	return o;
}

/* The THP demand of guaranteed cgroups at the last look, and the resizes asked. */
static struct json_object *zone_demand_json(const struct zone_demand *z)
{
	struct json_object *o = json_object_new_object();

	json_add_u64(o, "demand_bytes", z->demand_bytes);
	json_add_u64(o, "guaranteed_cgroups", z->guaranteed);
	json_add_u64(o, "target_bytes", z->view.target_bytes);
	json_add_u64(o, "resize_requests", z->requests);
	return o;
}

struct json_object *decide_status_json(const struct taod *d)
{
	struct json_object *o = json_object_new_object();
	uint64_t count[CLASS_MAX] = {0};

	uint64_t tenants = 0, reachable = 0;

	for (size_t i = 0; i < d->decide.n; i++) {
		const struct cg_judge *j = d->decide.v[i];
		/* By name, not j->pol: a reload frees the policies that points
		 * into, and decide renews it only at the next tick. */
		const struct policy *p = policy_find(&d->cfg->policies, j->policy);

		if (j->tenant_id != j->id)
			continue;
		count[j->cls]++;
		tenants++;
		reachable += p && d->actor && actor_can_reach(d->actor, j->path, p->dry_run);
	}
	json_add_u64(o, "policies", d->cfg->policies.n);
	json_add_u64(o, "cgroups", d->decide.n);
	json_add_u64(o, "tenants", tenants);
	json_add_u64(o, "tenants_actions_reach", reachable);
	for (int c = 0; c < CLASS_MAX; c++)
		json_add_u64(o, cg_class_name(c), count[c]);
	json_add_u64(o, "judgements", d->decide.judgements);
	json_add_u64(o, "requests", d->decide.requests);
	if (d->kernel.kind == KERNEL_TAO)
		json_add(o, "zones", zone_demand_json(&d->decide.zones));
	return o;
}
