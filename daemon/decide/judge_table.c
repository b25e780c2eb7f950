// SPDX-License-Identifier: GPL-2.0
/* Decide's per-cgroup memory, by cgroup id; forgotten when a cgroup goes. */
#include <assert.h>
#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "judge_table.h"

void decide_init(struct decide_state *s)
{
	assert(s);
	memset(s, 0, sizeof(*s));
}

static void judge_free(struct cg_judge *j)
{
	free(j->path);
	free(j);
}

void decide_free(struct decide_state *s)
{
	for (size_t i = 0; i < s->n; i++)
		judge_free(s->v[i]);
	free(s->v);
	free(s->of_entry);
	memset(s, 0, sizeof(*s));
}

int judges_align(struct decide_state *s, const struct cgroup_table *t)
{
	assert(s);
	assert(t);

	size_t k = 0;

	if (t->n > s->of_entry_cap) {
		struct cg_judge **v = realloc(s->of_entry, t->n * sizeof(*v));

		if (!v)
			return -ENOMEM;
		s->of_entry = v;
		s->of_entry_cap = t->n;
	}
	for (size_t i = 0; i < t->n; i++) {
		while (k < s->n && s->v[k]->id < t->v[i]->id)
			k++;
		s->of_entry[i] = k < s->n && s->v[k]->id == t->v[i]->id ? s->v[k] : NULL;
	}
	return 0;
}

_Static_assert(offsetof(struct cg_judge, id) == 0, "id_vec needs the id first");

struct cg_judge *decide_find(const struct decide_state *s, uint64_t id)
{
	return id_vec_find(&s->ids, id);
}

struct cg_judge *judge_table_add(struct decide_state *s, uint64_t id)
{
	assert(s);

	struct cg_judge *j = calloc(1, sizeof(*j));

	if (!j)
		return NULL;
	j->id = id;
	j->top_cause = -1;
	if (id_vec_insert(&s->ids, j)) {
		free(j);
		return NULL;
	}
	return j;
}

static int seen_this_pass(void *ctx, void *item)
{
	return ((struct cg_judge *)item)->seen_gen == ((struct decide_state *)ctx)->gen;
}

static void drop_judge(void *ctx, void *item)
{
	(void)ctx;
	judge_free(item);
}

void judge_table_sweep(struct decide_state *s)
{
	id_vec_filter(&s->ids, seen_this_pass, drop_judge, s);
}

/* Keeps the judge's copy of the path in step with the table's. */
int judge_set_path(struct cg_judge *j, const char *path)
{
	assert(j);
	assert(path);

	char *copy;

	if (j->path && !strcmp(j->path, path))
		return 0;
	copy = strdup(path);
	if (!copy)
		return -ENOMEM;
	free(j->path);
	j->path = copy;
	return 0;
}
