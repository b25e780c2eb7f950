// SPDX-License-Identifier: GPL-2.0
/*
 * Exponential back-off per key ("cgroup kind", or a memory block): 10 s
 * after the first failure, doubling up to 10 min; a success clears it.
 */
#include <assert.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backoff.h"
#include "act_backend.h"

#define BACKOFF_TABLE_MAX 4096

static struct backoff_entry *find(const struct backoff_table *t, const char *key)
{
	for (size_t i = 0; i < t->n; i++)
		if (!strcmp(t->v[i].key, key))
			return &t->v[i];
	return NULL;
}

/* Drops entries whose wait is long over: they no longer matter. */
static void forget_expired(struct backoff_table *t, uint64_t now_ms)
{
	size_t out = 0;

	for (size_t i = 0; i < t->n; i++)
		if (t->v[i].retry_ms + BACKOFF_MAX_MS > now_ms)
			t->v[out++] = t->v[i];
	t->n = out;
}

static struct backoff_entry *add(struct backoff_table *t, const char *key, uint64_t now_ms)
{
	if (t->n == t->cap)
		forget_expired(t, now_ms);
	if (t->n == t->cap) {
		size_t cap = t->cap ? t->cap * 2 : 16;
		struct backoff_entry *v;

		if (cap > BACKOFF_TABLE_MAX)
			return NULL;
		v = realloc(t->v, cap * sizeof(*v));
		if (!v)
			return NULL;
		t->v = v;
		t->cap = cap;
	}
	memset(&t->v[t->n], 0, sizeof(t->v[t->n]));
	snprintf(t->v[t->n].key, sizeof(t->v[t->n].key), "%s", key);
	return &t->v[t->n++];
}

uint64_t backoff_fail(struct backoff_table *t, const char *key, uint64_t now_ms)
{
	assert(t);
	assert(key);

	struct backoff_entry *e = find(t, key);
	uint64_t delay;

	if (!e)
		e = add(t, key, now_ms);
	if (!e)
		return BACKOFF_MAX_MS; /* table full: the caller still waits */
	e->failures++;
	delay = BACKOFF_BASE_MS << (e->failures > 7 ? 6 : e->failures - 1);
	if (delay > BACKOFF_MAX_MS)
		delay = BACKOFF_MAX_MS;
	e->retry_ms = now_ms + delay;
	return delay;
}

void backoff_clear(struct backoff_table *t, const char *key)
{
	assert(t);
	assert(key);

	struct backoff_entry *e = find(t, key);

	if (e)
		*e = t->v[--t->n];
}

uint64_t backoff_wait_ms(const struct backoff_table *t, const char *key, uint64_t now_ms)
{
	assert(t);
	assert(key);

	const struct backoff_entry *e = find(t, key);

	return e && e->retry_ms > now_ms ? e->retry_ms - now_ms : 0;
}

void backoff_free(struct backoff_table *t)
{
	free(t->v);
	memset(t, 0, sizeof(*t));
}
