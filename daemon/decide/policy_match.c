// SPDX-License-Identifier: GPL-2.0
/*
 * Which policy applies to a cgroup. Globs are fnmatch(3) patterns without
 * flags, so '*' also crosses '/'. Specificity: more literal characters
 * wins, then fewer wildcards, then the policy defined later.
 */
#include <assert.h>
#include <fnmatch.h>
#include <string.h>

#include "policy_match.h"

/* Length of a [...] class starting at @g, or 0 when it is not closed. */
static size_t class_len(const char *g)
{
	size_t i = 1;

	if (g[i] == '!' || g[i] == '^')
		i++;
	if (g[i] == ']')
		i++;
	while (g[i] && g[i] != ']')
		i++;
	return g[i] == ']' ? i + 1 : 0;
}

void glob_specificity(const char *g, struct glob_specificity *out)
{
	out->literals = out->wildcards = 0;
	while (*g) {
		size_t n = *g == '[' ? class_len(g) : 0;

		if (*g == '*' || *g == '?' || n) {
			out->wildcards++;
			g += n ? n : 1;
			continue;
		}
		if (*g == '\\' && g[1])
			g++;
		out->literals++;
		g++;
	}
}

/* > 0 when @a is more specific than @b. */
static int compare_spec(const struct glob_specificity *a, const struct glob_specificity *b)
{
	if (a->literals != b->literals)
		return a->literals > b->literals ? 1 : -1;
	if (a->wildcards != b->wildcards)
		return a->wildcards < b->wildcards ? 1 : -1;
	return 0;
}

/* The policy's most specific glob matching @path; false when none does. */
static bool best_glob(const struct policy *p, const char *path, struct policy_candidate *c)
{
	bool found = false;

	for (unsigned i = 0; i < p->nglobs; i++) {
		struct glob_specificity s;

		if (fnmatch(p->globs[i], path, 0))
			continue;
		glob_specificity(p->globs[i], &s);
		if (!found || compare_spec(&s, &c->spec) > 0) {
			c->glob = p->globs[i];
			c->spec = s;
			found = true;
		}
	}
	c->policy = p;
	return found;
}

const struct policy *policy_lookup(const struct policy_set *set, const char *path,
				   struct policy_match *why)
{
	assert(set);
	assert(set->n > 0); /* v[0], the default policy, is always there */
	assert(path);

	struct policy_match local;
	struct policy_match *m = why ? why : &local;
	const struct policy_candidate *best = NULL;

	m->ncand = 0;
	for (unsigned i = 1; i < set->n; i++) {
		struct policy_candidate *c = &m->cand[m->ncand];

		if (!best_glob(&set->v[i], path, c))
			continue;
		/* Later definitions win ties: >= keeps the last of equals. */
		if (!best || compare_spec(&c->spec, &best->spec) >= 0)
			best = c;
		m->ncand++;
	}
	m->winner = best ? best->policy : &set->v[0];
	m->glob = best ? best->glob : NULL;
	return m->winner;
}
