/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Knows what changed in the cgroup tree, so the tick looks only there:
 * inotify on every cgroup directory for child mkdir/rmdir, each watch
 * mapped to its cgroup's id. Events name a parent and a child's name; a
 * queue overflow, a rename or a watch it does not know asks for a walk of
 * the whole tree instead.
 */
#ifndef TAOD_CGROUP_WATCH_H
#define TAOD_CGROUP_WATCH_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/id_vec.h"

struct cgroup_watch {
	int fd; /* inotify; -1 when unavailable (then every tick walks) */
	bool open;
	struct id_vec wds; /* struct watch_rec by watch descriptor */
};

/* A directory made (or removed) under the cgroup @parent_id. */
struct cgroup_event {
	uint64_t parent_id;
	bool made;
	char name[NAME_MAX + 1];
};

/* Events of one drain; grown as needed, kept for the next. */
struct cgroup_events {
	struct cgroup_event *v;
	size_t n, cap;
};

int cgroup_watch_open(struct cgroup_watch *w);
void cgroup_watch_close(struct cgroup_watch *w);
/* Watches directory @name under the open directory @atfd, cgroup @id, for
 * children made or removed. Returns the watch (> 0), or 0 when none. */
int cgroup_watch_add(struct cgroup_watch *w, int atfd, const char *name, uint64_t id);
/* Stops watch @wd (0: none), whose directory is gone. */
void cgroup_watch_drop(struct cgroup_watch *w, int wd);
/*
 * Drains the events into @ev, in order. Returns true when they are all
 * the tree did since the last drain, false when the whole tree must be
 * walked (watching unavailable, the queue overflowed, a directory was
 * renamed, an unknown watch, out of memory).
 */
bool cgroup_watch_drain(struct cgroup_watch *w, struct cgroup_events *ev);
void cgroup_events_free(struct cgroup_events *ev);

#endif
