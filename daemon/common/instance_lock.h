/* SPDX-License-Identifier: GPL-2.0 */
/*
 * One taod per configuration: a second one would take over the control
 * socket and write the same history database. The lock is a flock() on
 * SOCKET.lock, held for the process's life (the fd is never closed, so the
 * kernel releases it however taod ends).
 */
#ifndef TAOD_INSTANCE_LOCK_H
#define TAOD_INSTANCE_LOCK_H

#include <stddef.h>

/*
 * Locks the file beside @socket_path and writes our pid into it. 0, or
 * -errno with @why saying why: for -EWOULDBLOCK, the holder's pid and the
 * lock file's path.
 */
int instance_lock(const char *socket_path, char *why, size_t why_len);

#endif
