// SPDX-License-Identifier: GPL-2.0
/*
 * Tenants: the unit decide judges. A policy's glob names its tenants: a
 * cgroup the policy wins, whose parent the policy does not win (or is the
 * root), is a tenant root, and every descendant the same policy wins is a
 * member whose evidence counts to the root. A cgroup of the default policy
 * is a tenant of its own. Removed cgroups fold into their parent (account
 * stage, cgroup_fold.c), so a tenant that spreads over child cgroups, or
 * hops between them, is judged on all it did.
 */
#include <string.h>

#include "account/cgroup_fold.h"
#include "decide.h"
#include "policy_match.h"

/* Deeper than any tree cgroupfs holds; stops a parent cycle (a move). */
#define TENANT_MAX_DEPTH 65536

static bool is_root_path(const char *path)
{
	return !strcmp(path, "/");
}

/* The tenant root of @e, memoized in its judge for this tenant_gen. */
static uint64_t assign(struct decide_state *s, const struct cgroup_table *t,
		       const struct policy_set *ps, const struct cgroup_entry *e, unsigned depth)
{
	struct cg_judge *j = decide_find(s, e->id);
	const struct cgroup_entry *parent;
	struct cg_judge *pj;

	if (!j)
		return e->id;
	if (j->tenant_gen == s->tenant_gen)
		return j->tenant_id;
	j->pol = policy_lookup(ps, e->path, NULL);
	j->tenant_id = e->id;
	j->root = j;
	j->tenant_gen = s->tenant_gen;
	if (j->pol == &ps->v[0] || depth > TENANT_MAX_DEPTH)
		return e->id;
	parent = cgroup_table_find(t, e->parent_id);
	if (!parent || !parent->path || is_root_path(parent->path))
		return e->id;
	pj = decide_find(s, parent->id);
	if (!pj)
		return e->id;
	assign(s, t, ps, parent, depth + 1);
	if (pj->pol == j->pol) {
		j->tenant_id = pj->tenant_id;
		j->root = pj->root;
	}
	return j->tenant_id;
}

static bool stale(const struct decide_state *s, const struct cgroup_table *t,
		  const struct policy_set *ps)
{
	return !s->tenant_gen || t->tree_gen != s->tree_gen_seen || ps->gen != s->policy_gen_seen ||
	       ps != s->policies_seen;
}

static void assign_all(struct decide_state *s, const struct cgroup_table *t,
		       const struct policy_set *ps)
{
	s->tenant_gen++;
	s->tree_gen_seen = t->tree_gen;
	s->policy_gen_seen = ps->gen;
	s->policies_seen = ps;
	for (size_t i = 0; i < t->n; i++)
		if (t->v[i]->path)
			assign(s, t, ps, t->v[i], 0);
}

void tenants_update(struct decide_state *s, const struct cgroup_table *t,
		    const struct policy_set *ps)
{
	if (stale(s, t, ps))
		assign_all(s, t, ps);
	for (size_t i = 0; i < s->n; i++) {
		memset(&s->v[i]->acc, 0, sizeof(s->v[i]->acc));
		s->v[i]->members = 0;
	}
	for (size_t i = 0; i < t->n; i++) {
		const struct cgroup_entry *e = t->v[i];
		struct cg_judge *j = s->of_entry[i];
		struct cg_evidence ev;

		if (!e->path || !j || !j->root)
			continue;
		cgroup_entry_evidence(e, &ev);
		cg_evidence_add(&j->root->acc, &ev);
		j->root->acc.partly_counted = t->partial_gauge;
		j->root->members++;
	}
}

uint64_t tenant_of_cgroup(const struct decide_state *s, const struct cgroup_table *t,
			  uint64_t cgroup_id)
{
	const struct cgroup_entry *e = cgroup_fold_target(t, cgroup_id);
	const struct cg_judge *j = e ? decide_find(s, e->id) : NULL;

	return j && j->tenant_gen == s->tenant_gen ? j->tenant_id : 0;
}
