// SPDX-License-Identifier: GPL-2.0
#include "cgroup_removed.h"

#include <stdlib.h>
#include <string.h>

static int child_cmp(const void *a, const void *b)
{
	const struct cgroup_child *x = a, *y = b;

	if (x->parent_id != y->parent_id)
		return x->parent_id < y->parent_id ? -1 : 1;
	return strcmp(x->name, y->name);
}

size_t cgroup_table_mark_removed(struct cgroup_table *t, struct cgroup_child *names, size_t n)
{
	size_t marked = 0;

	if (!n)
		return 0;
	qsort(names, n, sizeof(*names), child_cmp);
	for (size_t i = 0; i < t->n; i++) {
		struct cgroup_entry *e = t->v[i];
		struct cgroup_child key = {.parent_id = e->parent_id};

		if (!e->path || !e->parent_id)
			continue; /* never walked, or the root */
		key.name = strrchr(e->path, '/') + 1;
		if (bsearch(&key, names, n, sizeof(*names), child_cmp)) {
			e->removed = true;
			marked++;
		}
	}
	return marked;
}
