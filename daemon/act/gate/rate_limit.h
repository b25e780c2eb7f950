/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Actions per minute and bytes per minute.
 * Defined in rate_limit.c.
 */
#ifndef TAOD_ACT_RATE_LIMIT_H
#define TAOD_ACT_RATE_LIMIT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "act/act_backend.h"

struct rate_limit {
	double actions; /* tokens left */
	double bytes;
	uint64_t last_ms;
	bool primed;
};

void rate_limit_refill(struct rate_limit *r, const struct act_settings *s, uint64_t now_ms);
bool rate_limit_action_left(const struct rate_limit *r);
uint64_t rate_limit_bytes_left(const struct rate_limit *r);
void rate_limit_take(struct rate_limit *r, uint64_t bytes);

#endif
