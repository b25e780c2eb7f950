// SPDX-License-Identifier: GPL-2.0
#include "cgroup_watch.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/inotify.h>
#include <unistd.h>

#include "common/log.h"

/* Which cgroup a watch is on. */
struct watch_rec {
	uint64_t wd; /* first: id_vec */
	uint64_t id;
	bool ignored; /* the kernel dropped it (IN_IGNORED): the record goes */
};

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

static void forget_all(struct cgroup_watch *w)
{
	for (size_t i = 0; i < w->wds.n; i++)
		free(w->wds.v[i]);
	free(w->wds.v);
	memset(&w->wds, 0, sizeof(w->wds));
}

void cgroup_watch_close(struct cgroup_watch *w)
{
	if (w->open && w->fd >= 0)
		close(w->fd);
	w->fd = -1;
	w->open = false;
	forget_all(w);
}

/* Out of watches: lose them all and fall back to walking every tick. */
static void give_up(struct cgroup_watch *w, const char *why)
{
	log_warn("%s; the cgroup tree is walked every tick", why);
	close(w->fd);
	w->fd = -1;
	forget_all(w);
}

static bool remember(struct cgroup_watch *w, int wd, uint64_t id)
{
	struct watch_rec *r = id_vec_find(&w->wds, (uint64_t)wd);

	if (r) { /* the same directory again (a walk after a rename) */
		r->id = id;
		r->ignored = false;
		return true;
	}
	r = calloc(1, sizeof(*r));
	if (r) {
		r->wd = (uint64_t)wd;
		r->id = id;
	}
	if (r && !id_vec_insert(&w->wds, r))
		return true;
	free(r);
	return false;
}

int cgroup_watch_add(struct cgroup_watch *w, int atfd, const char *name, uint64_t id)
{
	uint32_t mask =
	    IN_CREATE | IN_DELETE | IN_MOVED_FROM | IN_MOVED_TO | IN_ONLYDIR | IN_DONT_FOLLOW;
	char dir[320];
	int wd;

	if (w->fd < 0)
		return 0;
	/* By the open parent: the directory's path may be longer than PATH_MAX. */
	snprintf(dir, sizeof(dir), "/proc/self/fd/%d/%s", atfd, name);
	wd = inotify_add_watch(w->fd, dir, mask);
	if (wd < 0 && errno == ENOSPC)
		give_up(w, "inotify watches exhausted");
	else if (wd > 0 && !remember(w, wd, id))
		give_up(w, "out of memory for inotify watches");
	return wd > 0 && w->fd >= 0 ? wd : 0;
}

void cgroup_watch_drop(struct cgroup_watch *w, int wd)
{
	/* Its record goes when the kernel's IN_IGNORED comes back. */
	if (wd > 0 && w->fd >= 0)
		inotify_rm_watch(w->fd, wd);
}

static int keep_rec(void *ctx, void *item)
{
	(void)ctx;
	return !((struct watch_rec *)item)->ignored;
}

static void free_rec(void *ctx, void *item)
{
	(void)ctx;
	free(item);
}

static bool push(struct cgroup_events *ev, uint64_t parent_id, bool made, const char *name)
{
	if (ev->n == ev->cap) {
		size_t cap = ev->cap ? ev->cap * 2 : 64;
		struct cgroup_event *v = realloc(ev->v, cap * sizeof(*v));

		if (!v)
			return false;
		ev->v = v;
		ev->cap = cap;
	}
	ev->v[ev->n].parent_id = parent_id;
	ev->v[ev->n].made = made;
	snprintf(ev->v[ev->n].name, sizeof(ev->v[ev->n].name), "%s", name);
	ev->n++;
	return true;
}

/* One event: false when only a whole walk will do. */
static bool take(struct cgroup_watch *w, const struct inotify_event *e, struct cgroup_events *ev,
		 size_t *ignored)
{
	struct watch_rec *r = id_vec_find(&w->wds, (uint64_t)(int64_t)e->wd);

	if (e->mask & IN_IGNORED) {
		if (r && !r->ignored) {
			r->ignored = true;
			(*ignored)++;
		}
		return true;
	}
	if (e->mask & (IN_Q_OVERFLOW | IN_MOVED_FROM | IN_MOVED_TO) || !r || !e->len)
		return false;
	if (!(e->mask & IN_ISDIR))
		return true; /* a file: cgroupfs makes none that matter */
	return push(ev, r->id, e->mask & IN_CREATE, e->name);
}

bool cgroup_watch_drain(struct cgroup_watch *w, struct cgroup_events *ev)
{
	char buf[8192] __attribute__((aligned(__alignof__(struct inotify_event))));
	size_t ignored = 0;
	bool whole = false;
	ssize_t n;

	ev->n = 0;
	if (w->fd < 0)
		return false;
	while ((n = read(w->fd, buf, sizeof(buf))) > 0)
		for (char *p = buf; p < buf + n;) {
			const struct inotify_event *e = (const struct inotify_event *)p;

			whole |= !take(w, e, ev, &ignored);
			p += sizeof(*e) + e->len;
		}
	if (ignored)
		id_vec_filter(&w->wds, keep_rec, free_rec, NULL);
	return !whole;
}

void cgroup_events_free(struct cgroup_events *ev)
{
	free(ev->v);
	memset(ev, 0, sizeof(*ev));
}
