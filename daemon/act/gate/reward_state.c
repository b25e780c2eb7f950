// SPDX-License-Identifier: GPL-2.0
/*
 * The last collapse asked for each cgroup, for `taoctl abusers` and
 * `taoctl policy`: whether its guarantee is being met, and if not why
 * (no gain, no free 2 MiB blocks, backing off). Bounded: when full, the
 * cgroup asked about longest ago is forgotten.
 */
#include <assert.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "reward_state.h"
#include "act/act_backend.h"

#define REWARD_TABLE_MAX 4096

static struct reward_entry *find(const struct reward_table *t, const char *cgroup)
{
	for (size_t i = 0; i < t->n; i++)
		if (!strcmp(t->v[i].cgroup, cgroup))
			return &t->v[i];
	return NULL;
}

static struct reward_entry *oldest(struct reward_table *t)
{
	struct reward_entry *o = &t->v[0];

	for (size_t i = 1; i < t->n; i++)
		if (t->v[i].at_ms < o->at_ms)
			o = &t->v[i];
	return o;
}

static struct reward_entry *add(struct reward_table *t, const char *cgroup)
{
	char *copy = strdup(cgroup);
	struct reward_entry *e;

	if (!copy)
		return NULL;
	if (t->n == t->cap && t->cap < REWARD_TABLE_MAX) {
		size_t cap = t->cap ? t->cap * 2 : 16;
		struct reward_entry *v = realloc(t->v, cap * sizeof(*v));

		if (v) {
			t->v = v;
			t->cap = cap;
		}
	}
	if (t->n < t->cap) {
		e = &t->v[t->n++];
	} else if (t->n) {
		e = oldest(t);
		free(e->cgroup);
	} else {
		free(copy);
		return NULL;
	}
	memset(e, 0, sizeof(*e));
	e->cgroup = copy;
	return e;
}

void reward_table_put(struct reward_table *t, const char *cgroup, const struct act_outcome *o,
		      uint64_t now_ms)
{
	assert(t);
	assert(cgroup);
	assert(o);

	struct reward_entry *e = find(t, cgroup);

	if (!e)
		e = add(t, cgroup);
	if (!e)
		return;
	e->result = o->result;
	e->at_ms = now_ms;
	e->gained_bytes = o->gained_bytes;
	snprintf(e->detail, sizeof(e->detail), "%s", o->detail);
}

const struct reward_entry *reward_table_get(const struct reward_table *t, const char *cgroup)
{
	assert(t);
	assert(cgroup);
	return find(t, cgroup);
}

void reward_table_free(struct reward_table *t)
{
	for (size_t i = 0; i < t->n; i++)
		free(t->v[i].cgroup);
	free(t->v);
	memset(t, 0, sizeof(*t));
}
