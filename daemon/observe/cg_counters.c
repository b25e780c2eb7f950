// SPDX-License-Identifier: GPL-2.0
/* The per-cgroup counter table and the per-CPU sum, both from TAOD_CG_COUNTERS. */
#include "cg_counters.h"

#include <assert.h>
#include <string.h>

#define CG_ROW_(...) CG_COUNTER_ROW(struct taod_cg_counters, __VA_ARGS__)
const struct cg_counter cg_counters[CG_NCOUNTERS] = {TAOD_CG_COUNTERS(CG_ROW_)};
#undef CG_ROW_

uint64_t cg_counter_value(const struct taod_cg_counters *c, const struct cg_counter *d)
{
	assert(c);
	assert(d);

	__u64 v;

	memcpy(&v, (const char *)c + d->offset, sizeof(v));
	return v;
}

/* The sum below adds the struct as an array: it must hold nothing but __u64. */
_Static_assert(sizeof(struct taod_cg_counters) == (CG_NCOUNTERS + TAOD_MAX_ORDER) * sizeof(__u64),
	       "struct taod_cg_counters: the list's counters and folio_alloc, all __u64");

void cg_counters_add(struct taod_cg_counters *to, const struct taod_cg_counters *from)
{
	assert(to);
	assert(from);
	/* Every member, the list's and the orders', is a __u64 and adds up alike. */
	const __u64 *f = (const __u64 *)from;
	__u64 *t = (__u64 *)to;

	for (size_t k = 0; k < sizeof(*to) / sizeof(__u64); k++)
		t[k] += f[k];
}

void cg_counters_sum(const struct taod_cg_counters *v, int n, struct taod_cg_counters *s)
{
	assert(v || n <= 0);
	assert(s);
	memset(s, 0, sizeof(*s));
	for (int i = 0; i < n; i++)
		cg_counters_add(s, &v[i]);
}
