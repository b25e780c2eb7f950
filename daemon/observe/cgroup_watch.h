/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Knows when the cgroup tree changed, so the tick walks it only then:
 * inotify on every cgroup directory for child mkdir/rmdir.
 */
#ifndef TAOD_CGROUP_WATCH_H
#define TAOD_CGROUP_WATCH_H

#include <stdbool.h>

struct cgroup_watch {
	int fd; /* inotify; -1 when unavailable (then every tick walks) */
	bool open;
};

int cgroup_watch_open(struct cgroup_watch *w);
void cgroup_watch_close(struct cgroup_watch *w);
/* Watches directory @name under the open directory @atfd for children made
 * or removed (idempotent). */
void cgroup_watch_add(struct cgroup_watch *w, int atfd, const char *name);
/* Drains the events: true if the tree may have changed since the last call
 * (also when watching is unavailable or the queue overflowed). */
bool cgroup_watch_changed(struct cgroup_watch *w);

#endif
