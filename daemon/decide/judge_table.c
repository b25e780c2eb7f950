// SPDX-License-Identifier: GPL-2.0
/* Decide's per-cgroup memory, by cgroup id; forgotten when a cgroup goes. */
#include <stdlib.h>
#include <string.h>

#include "taod/decide.h"

void decide_init(struct decide_state *s)
{
	memset(s, 0, sizeof(*s));
}

void decide_free(struct decide_state *s)
{
	for (size_t i = 0; i < s->n; i++)
		free(s->v[i]);
	free(s->v);
	memset(s, 0, sizeof(*s));
}

static int compare_id(const void *key, const void *elem)
{
	uint64_t id = *(const uint64_t *)key;
	const struct cg_judge *j = *(struct cg_judge *const *)elem;

	return id < j->id ? -1 : id > j->id;
}

static int compare_judges(const void *a, const void *b)
{
	const struct cg_judge *x = *(struct cg_judge *const *)a;

	return compare_id(&x->id, b);
}

struct cg_judge *decide_find(const struct decide_state *s, uint64_t id)
{
	struct cg_judge **j = s->n ? bsearch(&id, s->v, s->n, sizeof(*s->v), compare_id) : NULL;

	return j ? *j : NULL;
}

/* New cgroups are rare next to ticks: append and sort. */
struct cg_judge *judge_table_add(struct decide_state *s, uint64_t id)
{
	struct cg_judge *j;

	if (s->n == s->cap) {
		size_t cap = s->cap ? s->cap * 2 : 64;
		struct cg_judge **v = realloc(s->v, cap * sizeof(*v));

		if (!v)
			return NULL;
		s->v = v;
		s->cap = cap;
	}
	j = calloc(1, sizeof(*j));
	if (!j)
		return NULL;
	j->id = id;
	s->v[s->n++] = j;
	qsort(s->v, s->n, sizeof(*s->v), compare_judges);
	return j;
}

void judge_table_sweep(struct decide_state *s)
{
	size_t kept = 0;

	for (size_t i = 0; i < s->n; i++) {
		if (s->v[i]->seen_gen == s->gen)
			s->v[kept++] = s->v[i];
		else
			free(s->v[i]);
	}
	s->n = kept;
}
