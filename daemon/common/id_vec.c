// SPDX-License-Identifier: GPL-2.0
#include "id_vec.h"

#include <assert.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

static uint64_t id_of(const void *item)
{
	return *(const uint64_t *)item;
}

size_t id_vec_lower_bound(const struct id_vec *iv, uint64_t id)
{
	assert(iv);
	assert(iv->v || !iv->n);

	size_t lo = 0, hi = iv->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (id_of(iv->v[mid]) < id)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

void *id_vec_find(const struct id_vec *iv, uint64_t id)
{
	size_t i = id_vec_lower_bound(iv, id);

	return i < iv->n && id_of(iv->v[i]) == id ? iv->v[i] : NULL;
}

int id_vec_insert(struct id_vec *iv, void *item)
{
	assert(iv);
	assert(item);

	size_t at = id_vec_lower_bound(iv, id_of(item));

	assert(at == iv->n || id_of(iv->v[at]) != id_of(item)); /* one element per id */
	if (iv->n == iv->cap) {
		size_t cap = iv->cap ? iv->cap * 2 : 64;
		void **v = realloc(iv->v, cap * sizeof(*v));

		if (!v)
			return -ENOMEM;
		iv->v = v;
		iv->cap = cap;
	}
	memmove(&iv->v[at + 1], &iv->v[at], (iv->n - at) * sizeof(*iv->v));
	iv->v[at] = item;
	iv->n++;
	return 0;
}

void id_vec_filter(struct id_vec *iv, int (*keep)(void *ctx, void *item),
		   void (*drop)(void *ctx, void *item), void *ctx)
{
	assert(iv);
	assert(keep);
	assert(drop);

	size_t kept = 0;

	for (size_t i = 0; i < iv->n; i++) {
		if (keep(ctx, iv->v[i]))
			iv->v[kept++] = iv->v[i];
		else
			drop(ctx, iv->v[i]);
	}
	iv->n = kept;
}
