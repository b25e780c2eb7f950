/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The time one action may take. A shatter or collapse works in an offload
 * child (common/offload.h), other kinds in taod's loop; each checks its
 * time between steps and stops where it is once the limit has passed
 * (what is left waits for the next tick and the rate limit), pinging the
 * watchdog until then where it runs in the loop.
 */
#ifndef TAOD_ACT_TIME_H
#define TAOD_ACT_TIME_H

#include <stdbool.h>
#include <stdint.h>

#include "act_backend.h"

/* A third of systemd's 30 s watchdog in the shipped unit: compaction and
 * the per-CPU drain after a shatter still fit in what is left. */
#define ACT_TIME_LIMIT_S  10
#define ACT_TIME_LIMIT_MS (ACT_TIME_LIMIT_S * 1000)

struct act_time {
	uint64_t (*now_ms)(void);
	uint64_t end_ms;
	bool up; /* sticky: once up, every later step is skipped too */
};

/* Starts @t's clock (the context's monotonic clock) for one action. */
void act_time_start(struct act_time *t, const struct act_ctx *c);

/* true once the action's time is up (and from then on); false before,
 * after pinging the watchdog (keepalive.h). */
bool act_time_up(struct act_time *t);

/* What an audit record's detail says of an action stopped by its time. */
#define ACT_TIME_STR(x)	 #x
#define ACT_TIME_XSTR(x) ACT_TIME_STR(x)
#define ACT_TIME_NOTE	 ", stopped after " ACT_TIME_XSTR(ACT_TIME_LIMIT_S) " s (an action's time)"

#endif
