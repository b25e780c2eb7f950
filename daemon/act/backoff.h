/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Exponential back-off per key after failures.
 * Defined in backoff.c.
 */
#ifndef TAOD_ACT_BACKOFF_H
#define TAOD_ACT_BACKOFF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "act_backend.h"
#define BACKOFF_BASE_MS 10000ULL
#define BACKOFF_MAX_MS	600000ULL

struct backoff_entry {
	char key[320];
	uint64_t retry_ms;
	unsigned failures;
};

struct backoff_table {
	struct backoff_entry *v;
	size_t n, cap;
};

void backoff_free(struct backoff_table *t);
/* Records a failure; returns the delay until the next try. */
uint64_t backoff_fail(struct backoff_table *t, const char *key, uint64_t now_ms);
void backoff_clear(struct backoff_table *t, const char *key);
/* Milliseconds still to wait, 0 when the key may be tried. */
uint64_t backoff_wait_ms(const struct backoff_table *t, const char *key, uint64_t now_ms);

#endif
