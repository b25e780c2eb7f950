// SPDX-License-Identifier: GPL-2.0
#include "clock.h"

#include <time.h>

static uint64_t clock_us(clockid_t id)
{
	struct timespec ts;

	clock_gettime(id, &ts);
	return (uint64_t)ts.tv_sec * 1000000 + (uint64_t)ts.tv_nsec / 1000;
}

uint64_t monotonic_us(void)
{
	return clock_us(CLOCK_MONOTONIC);
}

uint64_t monotonic_ms(void)
{
	return monotonic_us() / 1000;
}

uint64_t realtime_ms(void)
{
	return clock_us(CLOCK_REALTIME) / 1000;
}
