/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A vector of pointers kept sorted by id, for the per-cgroup tables of
 * account and decide. Every element points to a struct whose first member
 * is its uint64_t id.
 */
#ifndef TAOD_ID_VEC_H
#define TAOD_ID_VEC_H

#include <stddef.h>
#include <stdint.h>

struct id_vec {
	void **v;
	size_t n, cap;
};

/* Index of @id, or where it would be inserted. */
size_t id_vec_lower_bound(const struct id_vec *iv, uint64_t id);
void *id_vec_find(const struct id_vec *iv, uint64_t id);
/* Inserts @item (not yet present) in order. Returns 0 or -ENOMEM. */
int id_vec_insert(struct id_vec *iv, void *item);
/* Keeps the elements @keep says yes to, in order; calls @drop on the rest. */
void id_vec_filter(struct id_vec *iv, int (*keep)(void *ctx, void *item),
		   void (*drop)(void *ctx, void *item), void *ctx);

#endif
