// SPDX-License-Identifier: GPL-2.0
/* Decide's per-cgroup memory, by cgroup id; forgotten when a cgroup goes. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "taod/decide.h"

void decide_init(struct decide_state *s)
{
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
	memset(s, 0, sizeof(*s));
}

/* Index of @id, or where it would go. */
static size_t lower_bound(const struct decide_state *s, uint64_t id)
{
	size_t lo = 0, hi = s->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (s->v[mid]->id < id)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

struct cg_judge *decide_find(const struct decide_state *s, uint64_t id)
{
	size_t i = lower_bound(s, id);

	return i < s->n && s->v[i]->id == id ? s->v[i] : NULL;
}

struct cg_judge *judge_table_add(struct decide_state *s, uint64_t id)
{
	size_t at = lower_bound(s, id);
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
	memmove(&s->v[at + 1], &s->v[at], (s->n - at) * sizeof(*s->v));
	s->v[at] = j;
	s->n++;
	return j;
}

void judge_table_sweep(struct decide_state *s)
{
	size_t kept = 0;

	for (size_t i = 0; i < s->n; i++) {
		if (s->v[i]->seen_gen == s->gen)
			s->v[kept++] = s->v[i];
		else
			judge_free(s->v[i]);
	}
	s->n = kept;
}

/* Keeps the judge's copy of the path in step with the table's. */
int judge_set_path(struct cg_judge *j, const char *path)
{
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
