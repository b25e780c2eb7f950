// SPDX-License-Identifier: GPL-2.0
#include "cgroup_watch.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/inotify.h>
#include <unistd.h>

#include "common/log.h"

int cgroup_watch_open(struct cgroup_watch *w)
{
	w->open = true;
	w->fd = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
	if (w->fd < 0) {
		log_warn("inotify: %m; the cgroup tree is walked every tick");
		return -errno;
	}
	return 0;
}

void cgroup_watch_close(struct cgroup_watch *w)
{
	if (w->open && w->fd >= 0)
		close(w->fd);
	w->fd = -1;
	w->open = false;
}

void cgroup_watch_add(struct cgroup_watch *w, int atfd, const char *name)
{
	uint32_t mask =
	    IN_CREATE | IN_DELETE | IN_MOVED_FROM | IN_MOVED_TO | IN_ONLYDIR | IN_DONT_FOLLOW;
	char dir[320];

	/* By the open parent: the directory's path may be longer than PATH_MAX. */
	snprintf(dir, sizeof(dir), "/proc/self/fd/%d/%s", atfd, name);
	/* Out of watches: lose the watch and fall back to walking every tick. */
	if (w->fd >= 0 && inotify_add_watch(w->fd, dir, mask) < 0 && errno == ENOSPC) {
		log_warn("inotify watches exhausted; the cgroup tree is walked every tick");
		close(w->fd);
		w->fd = -1;
	}
}

bool cgroup_watch_changed(struct cgroup_watch *w)
{
	char buf[4096] __attribute__((aligned(__alignof__(struct inotify_event))));
	bool changed = false;
	ssize_t n;

	if (w->fd < 0)
		return true;
	while ((n = read(w->fd, buf, sizeof(buf))) > 0)
		changed = true;
	return changed;
}
