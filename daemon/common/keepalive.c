// SPDX-License-Identifier: GPL-2.0
/* The systemd watchdog pinged from inside long work (keepalive.h). */
#include "keepalive.h"

#include <stdint.h>
#include <systemd/sd-daemon.h>

#include "clock.h"

#define KEEPALIVE_EVERY_MS 1000

int keepalive_ping(void)
{
	static uint64_t last_ms;
	uint64_t now = monotonic_ms(), usec = 0;
	int r;

	if (last_ms && now - last_ms < KEEPALIVE_EVERY_MS)
		return 0;
	/* Asked again each time: a reload or a test may change the environment. */
	if (sd_watchdog_enabled(0, &usec) <= 0)
		return 0;
	last_ms = now;
	r = sd_notify(0, "WATCHDOG=1");
	return r < 0 ? r : r > 0;
}
