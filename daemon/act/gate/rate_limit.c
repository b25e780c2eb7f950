// SPDX-License-Identifier: GPL-2.0
/*
 * Two token buckets refilled continuously: actions per minute and bytes
 * (shattered or collapsed) per minute. Both start full, so a burst of up to
 * one minute's worth passes and the rest waits for the refill.
 */
#include <assert.h>

#include "rate_limit.h"
#include "act/act_backend.h"

static double refill(double have, uint64_t per_minute, uint64_t elapsed_ms)
{
	double v = have + (double)per_minute * (double)elapsed_ms / 60000.0;

	return v > (double)per_minute ? (double)per_minute : v;
}

void rate_limit_refill(struct rate_limit *r, const struct act_settings *s, uint64_t now_ms)
{
	assert(r);
	assert(s);
	if (!r->primed) {
		r->actions = (double)s->actions_per_minute;
		r->bytes = (double)s->shatter_bytes_per_minute;
		r->primed = true;
	} else if (now_ms > r->last_ms) {
		r->actions = refill(r->actions, s->actions_per_minute, now_ms - r->last_ms);
		r->bytes = refill(r->bytes, s->shatter_bytes_per_minute, now_ms - r->last_ms);
	}
	/* A reload may have lowered the limits. */
	if (r->actions > (double)s->actions_per_minute)
		r->actions = (double)s->actions_per_minute;
	if (r->bytes > (double)s->shatter_bytes_per_minute)
		r->bytes = (double)s->shatter_bytes_per_minute;
	r->last_ms = now_ms;
}

bool rate_limit_action_left(const struct rate_limit *r)
{
	return r->actions >= 1.0;
}

uint64_t rate_limit_bytes_left(const struct rate_limit *r)
{
	/* 2^64 as a double: casting anything at or above it is undefined. */
	if (r->bytes >= 18446744073709551616.0)
		return UINT64_MAX;
	return r->bytes > 0 ? (uint64_t)r->bytes : 0;
}

void rate_limit_take(struct rate_limit *r, uint64_t bytes)
{
	assert(r);
	r->actions -= 1.0;
	r->bytes -= (double)bytes;
	if (r->bytes < 0)
		r->bytes = 0;
}
