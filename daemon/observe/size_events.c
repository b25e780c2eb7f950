// SPDX-License-Identifier: GPL-2.0
/* The per-size event table and the walks over it, from TAOD_SIZE_EVENTS. */
#include "size_events.h"

#include <assert.h>
#include <string.h>

const struct size_event size_events[SIZE_NEVENTS] = {SIZE_EVENTS(SIZE_EVENT_ROW)};

/* SIZE_EVENTS has a row per field of TAOD_SIZE_EVENTS, in its order. */
#define SIZE_ROW_INDEX_(f, ...) SIZE_ROW_##f,
enum { SIZE_EVENTS(SIZE_ROW_INDEX_) SIZE_NROWS };
#undef SIZE_ROW_INDEX_
#define SIZE_ROW_IN_ORDER_(f, ...)                                                                 \
	_Static_assert((int)SIZE_ROW_##f == (int)SIZE_IDX_##f, #f ": its row where its field is");
SIZE_EVENTS(SIZE_ROW_IN_ORDER_)
#undef SIZE_ROW_IN_ORDER_
_Static_assert((int)SIZE_NROWS == (int)SIZE_NEVENTS, "SIZE_EVENTS: a row for each field, no more");

/* The events lead both structs, in the list's order, at the same offsets. */
#define SIZE_SAME_OFFSET_(f)                                                                       \
	_Static_assert(offsetof(struct taod_cg_sizes, f) == offsetof(struct taod_task_sizes, f),   \
		       #f ": at one offset in both per-size structs");
TAOD_SIZE_EVENTS(SIZE_SAME_OFFSET_)
#undef SIZE_SAME_OFFSET_
_Static_assert(sizeof(struct taod_task_sizes) == SIZE_NEVENTS * TAOD_MAX_ORDER * sizeof(__u64),
	       "struct taod_task_sizes: the list's events, nothing else");
_Static_assert(offsetof(struct taod_cg_sizes, nr_anon) == sizeof(struct taod_task_sizes),
	       "struct taod_cg_sizes: the list's events first, then nr_anon");

/* The @k-th count (event k / TAOD_MAX_ORDER, order k % TAOD_MAX_ORDER) of @sizes. */
static __u64 *slot(const void *sizes, size_t k)
{
	return (__u64 *)sizes + k;
}

uint64_t size_count(const void *sizes, const struct size_event *d, int order)
{
	assert(sizes);
	assert(d);

	__u64 v;

	if (order < 0 || order >= TAOD_MAX_ORDER)
		return 0;
	memcpy(&v, (const char *)sizes + d->offset + (size_t)order * sizeof(__u64), sizeof(v));
	return v;
}

bool size_any(const void *sizes, int order)
{
	for (int i = 0; i < SIZE_NEVENTS; i++)
		if (size_count(sizes, &size_events[i], order))
			return true;
	return false;
}

static uint64_t size_sum(const void *sizes, int order, bool made)
{
	uint64_t n = 0;

	for (int i = 0; i < SIZE_NEVENTS; i++)
		if (size_events[i].made == made)
			n += size_count(sizes, &size_events[i], order);
	return n;
}

uint64_t size_made(const void *sizes, int order)
{
	return size_sum(sizes, order, true);
}

uint64_t size_broken(const void *sizes, int order)
{
	return size_sum(sizes, order, false);
}

void size_events_add(void *to, const void *add)
{
	assert(to);
	assert(add);
	for (size_t k = 0; k < SIZE_NEVENTS * TAOD_MAX_ORDER; k++)
		*slot(to, k) += *slot(add, k);
}

void size_events_copy(void *to, const void *from)
{
	assert(to);
	assert(from);
	memcpy(to, from, sizeof(struct taod_task_sizes));
}

bool size_events_moved(const void *now, const void *seen, void *delta)
{
	assert(now);
	assert(seen);
	assert(delta);

	bool any = false;

	for (size_t k = 0; k < SIZE_NEVENTS * TAOD_MAX_ORDER; k++) {
		__u64 n = *slot(now, k), s = *slot(seen, k);

		*slot(delta, k) = n >= s ? n - s : n;
		any = any || *slot(delta, k);
	}
	return any;
}

void size_events_list(FILE *f, size_t what, const char *fmt, const char *sep)
{
	assert(f);
	/* @what is the offset of one of the row's texts */
	assert(what + sizeof(const char *) <= sizeof(struct size_event));
	assert(fmt);
	assert(sep);
	for (int i = 0; i < SIZE_NEVENTS; i++) {
		const char *text;

		memcpy(&text, (const char *)&size_events[i] + what, sizeof(text));
		if (i)
			fputs(sep, f);
		fprintf(f, fmt, text);
	}
}
