// SPDX-License-Identifier: GPL-2.0
/* The time one action may take (act_time.h). */
#include "act_time.h"

#include "common/keepalive.h"

void act_time_start(struct act_time *t, const struct act_ctx *c)
{
	t->now_ms = c->now_ms;
	t->end_ms = c->now_ms() + ACT_TIME_LIMIT_MS;
	t->up = false;
}

bool act_time_up(struct act_time *t)
{
	if (t->up)
		return true;
	t->up = t->now_ms() >= t->end_ms;
	if (!t->up)
		keepalive_ping();
	return t->up;
}
