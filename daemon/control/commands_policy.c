// SPDX-License-Identifier: GPL-2.0
/* `policy` and `reload`: the policies in force, why one applies, new ones. */
#include <errno.h>
#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "commands.h"
#include "common/json_fields.h"
#include "decide/policy_match.h"
#include "taod/protocol.h"

static struct json_object *defined_at(const struct policy *p)
{
	char where[POLICY_FILE_MAX + 16];

	if (p->line > 0)
		snprintf(where, sizeof(where), "%s:%d", p->file, p->line);
	else
		snprintf(where, sizeof(where), "%s", p->file);
	return json_object_new_string(where);
}

static struct json_object *inherited_keys(const struct policy *p)
{
	struct json_object *a = json_object_new_array();

	/* match is never inherited: it is what makes a policy apply. */
	for (int k = PK_MATCH + 1; k < PK_MAX; k++)
		if (!(p->set & (1u << k)))
			json_object_array_add(
			    a, json_object_new_string(policy_key_name((enum policy_key)k)));
	return a;
}

/* A rung the kernel cannot carry out, what it says and what strikes do instead. */
static void ladder_note(const struct taod *d, const struct policy *p, char *buf, size_t len)
{
	const struct feature_probe *f = &d->kernel.feat[TAO_MEMCG_THP_ZONES];

	buf[0] = '\0';
	if (d->kernel.kind != KERNEL_TAO || f->present || !p->ladder[RUNG_RESTRICT])
		return;
	snprintf(buf, len, "restrict unsupported (%s): its strikes %s", f->why,
		 p->ladder[RUNG_SHATTER] ? "shatter" : "warn");
}

struct json_object *policy_json(const struct taod *d, const struct policy *p)
{
	struct json_object *o = json_object_new_object(), *m = json_object_new_array();
	char ladder[128], note[320];

	for (unsigned i = 0; i < p->nglobs; i++)
		json_object_array_add(m, json_object_new_string(p->globs[i]));
	ladder_format(p, ladder, sizeof(ladder));
	json_add_str(o, "name", p->name);
	json_add(o, "match", m);
	json_add_double(o, "coverage_guarantee", p->coverage_guarantee);
	json_add_double(o, "max_split_ratio", p->max_split_ratio);
	json_add_u64(o, "min_allocs", p->min_allocs);
	json_add_u64(o, "window_ms", p->window_ms);
	json_add_str(o, "ladder", ladder);
	ladder_note(d, p, note, sizeof(note));
	json_add_str(o, "ladder_note", note);
	json_add_u64(o, "cooldown_ms", p->cooldown_ms);
	json_add_bool(o, "dry_run", p->dry_run);
	json_add_u64(o, "escalate_after", p->escalate_after);
	json_add_u64(o, "relax_after", p->relax_after);
	json_add_u64(o, "horizon_ms", p->horizon_ms);
	json_add_str(o, "act_on", p->act_on_misuser ? "misuser" : "abuser");
	json_add_str(o, "sizes", policy_sizes_name(p->sizes));
	json_add_str(o, "act_when", p->act_always ? "always" : "need");
	json_add(o, "defined_at", defined_at(p));
	json_add(o, "from_default",
		 strcmp(p->name, POLICY_DEFAULT) ? inherited_keys(p) : json_object_new_array());
	return o;
}

static struct json_object *candidate_json(const struct policy_candidate *c, bool won)
{
	struct json_object *o = json_object_new_object();

	json_add_str(o, "policy", c->policy->name);
	json_add_str(o, "glob", c->glob);
	json_add_u64(o, "literals", c->spec.literals);
	json_add_u64(o, "wildcards", c->spec.wildcards);
	json_add(o, "defined_at", defined_at(c->policy));
	json_add_bool(o, "won", won);
	return o;
}

/* The strongest candidate other than the winner (later wins ties). */
static const struct policy_candidate *runner_up(const struct policy_match *m)
{
	const struct policy_candidate *best = NULL;

	for (unsigned i = 0; i < m->ncand; i++) {
		const struct policy_candidate *c = &m->cand[i];

		if (c->policy == m->winner)
			continue;
		if (!best || c->spec.literals > best->spec.literals ||
		    (c->spec.literals == best->spec.literals &&
		     c->spec.wildcards <= best->spec.wildcards))
			best = c;
	}
	return best;
}

static void explain(const struct policy_match *m, const char *path, char *buf, size_t len)
{
	const struct policy_candidate *w = NULL, *r = runner_up(m);

	for (unsigned i = 0; i < m->ncand; i++)
		if (m->cand[i].policy == m->winner)
			w = &m->cand[i];
	if (!w)
		snprintf(buf, len, "no policy's match globs match %s: the default policy applies",
			 path);
	else if (!r)
		snprintf(buf, len, "only policy %s matches (glob %s)", w->policy->name, w->glob);
	else if (w->spec.literals != r->spec.literals)
		snprintf(buf, len,
			 "policy %s wins: glob %s has %u literal characters, policy %s's "
			 "%s has %u",
			 w->policy->name, w->glob, w->spec.literals, r->policy->name, r->glob,
			 r->spec.literals);
	else if (w->spec.wildcards != r->spec.wildcards)
		snprintf(buf, len,
			 "policy %s wins: glob %s has %u wildcards, policy %s's %s has %u "
			 "(same %u literal characters)",
			 w->policy->name, w->glob, w->spec.wildcards, r->policy->name, r->glob,
			 r->spec.wildcards, w->spec.literals);
	else
		snprintf(buf, len, "policy %s wins: as specific as policy %s, and defined later",
			 w->policy->name, r->policy->name);
}

static bool cgroup_tracked(const struct taod *d, const char *path)
{
	for (size_t i = 0; i < d->cgroups.n; i++)
		if (d->cgroups.v[i]->path && !strcmp(d->cgroups.v[i]->path, path))
			return true;
	return false;
}

static struct json_object *policy_for_cgroup(struct taod *d, const char *path)
{
	struct policy_match *m = calloc(1, sizeof(*m));
	struct json_object *o, *cands;
	char why[PATH_MAX + 256];

	if (!m)
		return protocol_error("out of memory");
	policy_lookup(&d->cfg->policies, path, m);
	explain(m, path, why, sizeof(why));
	cands = json_object_new_array();
	for (unsigned i = 0; i < m->ncand; i++)
		json_object_array_add(cands,
				      candidate_json(&m->cand[i], m->cand[i].policy == m->winner));
	o = protocol_ok();
	json_add_str(o, "cgroup", path);
	json_add_bool(o, "tracked", cgroup_tracked(d, path));
	json_add(o, "policy", policy_json(d, m->winner));
	json_add(o, "matched", cands);
	json_add_str(o, "reason", why);
	json_add(o, "reward", reward_json(d, path));
	free(m);
	return o;
}

struct json_object *cmd_policy(struct taod *d, struct json_object *req)
{
	const char *path = NULL;
	struct json_object *o, *list;

	if (protocol_arg_string(req, "cgroup", &path) == -EINVAL)
		return protocol_error("args.cgroup must be a string");
	if (path && path[0] != '/')
		return protocol_errorf("args.cgroup \"%s\": expected a cgroup path starting with /",
				       path);
	if (path)
		return policy_for_cgroup(d, path);
	list = json_object_new_array();
	for (unsigned i = 0; i < d->cfg->policies.n; i++)
		json_object_array_add(list, policy_json(d, &d->cfg->policies.v[i]));
	o = protocol_ok();
	json_add(o, "policies", list);
	return o;
}

struct json_object *cmd_reload(struct taod *d, struct json_object *req)
{
	struct config_errors *errs = calloc(1, sizeof(*errs));
	struct config_restart restart = {0};
	struct json_object *o, *list;
	int n;

	(void)req;
	if (!errs || !d->reload) {
		free(errs);
		return protocol_error("reload is not available");
	}
	n = d->reload(d, errs, &restart);
	if (!n) {
		free(errs);
		o = protocol_ok();
		json_add_str(o, "config", d->config_path);
		json_add_u64(o, "policies", d->cfg->policies.n);
		list = json_object_new_array();
		for (int i = 0; i < restart.n; i++)
			json_object_array_add(list, json_object_new_string(restart.keys[i]));
		json_add(o, "restart_needed", list);
		return o;
	}
	list = json_object_new_array();
	for (int i = 0; i < errs->count; i++) {
		char line[PATH_MAX + 300];

		config_error_format(&errs->items[i], line, sizeof(line));
		json_object_array_add(list, json_object_new_string(line));
	}
	o = protocol_errorf("%s has %d errors; the running configuration stays", d->config_path, n);
	json_add(o, "errors", list);
	free(errs);
	return o;
}
