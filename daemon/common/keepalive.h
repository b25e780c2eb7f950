/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The systemd watchdog, pinged from inside long work. sd-event pings it
 * while the loop turns; an action that holds the loop for seconds (a
 * shatter, compaction, a collapse in a slow guest) pings it between its
 * steps, so only a step that hangs trips the watchdog.
 */
#ifndef TAOD_KEEPALIVE_H
#define TAOD_KEEPALIVE_H

/*
 * Tells systemd "WATCHDOG=1" if it asked for pings ($WATCHDOG_USEC for
 * this process), at most once a second however often it is called.
 * Returns 1 if it sent one, 0 if none was due or asked for, -errno if the
 * send failed.
 */
int keepalive_ping(void);

#endif
