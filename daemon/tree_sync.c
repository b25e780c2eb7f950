// SPDX-License-Identifier: GPL-2.0
/* The cgroup table follows the tree; see tree_sync.h. */
#define _GNU_SOURCE
#include "tree_sync.h"

#include <errno.h>
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "account/cgroup_fold.h"
#include "account/cgroup_removed.h"
#include "common/cgroup_dir.h"
#include "common/log.h"

/* Directories checked per tick at least: a small tree goes round fast. */
#define VERIFY_MIN 8
/* Directories made walked per tick: at most this many, for at most this
 * long, at least the minimum (a walk costs an open, a stat and a watch:
 * 10,000 made at once took half a second in one tick). */
#define NEW_DIRS_TICK_MAX 2000
#define NEW_DIRS_TICK_MIN 64
#define NEW_DIRS_TICK_US  10000
/* Cgroups removed that one tick drops (its watch, BPF rows, fold): ~7 us
 * each, 10,000 at once took 60-95 ms; the rest wait, marked, for the next. */
#define GONE_DIRS_TICK_MAX 2000
/* Entries dropped by one sweep past which freed memory goes back to the OS. */
#define TRIM_AFTER_DROPPED 256
/* ... once none went for this many ticks: decide and report let go of a
 * gone cgroup's state a tick or two after the table did. */
#define TRIM_QUIET_TICKS 2

struct sync_ctx {
	struct taod *d;
	uint64_t now;
	/* A walk is depth first: the last id seen at each depth is the
	 * parent of what comes next one level down. */
	uint64_t *at_depth;
	size_t depth_cap;
	size_t removed;	 /* entries marked removed this tick */
	int mount_there; /* -1: not looked at this tick; else whether the hierarchy is */
	/* Ids the sweep dropped, whose BPF rows are taken out after it. */
	uint64_t *gone;
	size_t ngone, gone_cap;
};

static size_t path_depth(const char *rel)
{
	size_t n = 0;

	for (const char *c = rel; *c; c++)
		n += *c == '/';
	return rel[0] == '/' && !rel[1] ? 0 : n;
}

/* The parent of @id at @depth; remembers @id for its children. */
static uint64_t track_parent(struct sync_ctx *s, size_t depth, uint64_t id)
{
	if (depth >= s->depth_cap) {
		size_t cap = depth * 2 + 16;
		uint64_t *v = realloc(s->at_depth, cap * sizeof(*v));

		if (!v)
			return 0;
		s->at_depth = v;
		s->depth_cap = cap;
	}
	s->at_depth[depth] = id;
	return depth ? s->at_depth[depth - 1] : 0;
}

static int on_cgroup_dir(void *user, uint64_t id, const char *rel, int atfd, const char *name)
{
	struct sync_ctx *s = user;
	uint64_t parent = track_parent(s, path_depth(rel), id);
	struct cgroup_entry *e = cgroup_table_touch(&s->d->cgroups, id, rel, parent, s->now);

	/* A directory's watch stays while it lives: one per new directory. */
	if (e && !e->watch)
		e->watch = cgroup_watch_add(&s->d->watch, atfd, name, id);
	return 0;
}

/* @rel (a cgroup under @parent_id) and all below it. */
static int walk_below(struct sync_ctx *s, const char *rel, uint64_t parent_id)
{
	size_t depth = path_depth(rel);

	if (depth)
		track_parent(s, depth - 1, parent_id);
	return cgroup_subtree_walk(&s->d->tree, rel, on_cgroup_dir, s);
}

static bool had_bpf_rows(const struct cgroup_entry *e)
{
	static const struct taod_cg_counters no_counts;
	static const struct taod_cg_sizes no_sizes;

	return memcmp(&e->counters, &no_counts, sizeof(no_counts)) ||
	       memcmp(&e->sizes, &no_sizes, sizeof(no_sizes));
}

static void on_cgroup_gone(void *user, const struct cgroup_entry *e)
{
	struct sync_ctx *s = user;

	log_debug("cgroup %s (id %llu) is gone", e->path ? e->path : "?",
		  (unsigned long long)e->id);
	cgroup_watch_drop(&s->d->watch, e->watch);
	/* BPF makes rows at a cgroup's first event: one with none read has
	 * none to take (a row made since is taken as a late one). */
	if (!had_bpf_rows(e))
		return;
	if (s->ngone == s->gone_cap) {
		size_t cap = s->gone_cap * 2 + 16;
		uint64_t *v = realloc(s->gone, cap * sizeof(*v));

		if (!v)
			return; /* its rows go when its tombstone does */
		s->gone = v;
		s->gone_cap = cap;
	}
	s->gone[s->ngone++] = e->id;
}

/* Its late events no longer fold into an ancestor: BPF may drop its row. */
static void on_cgroup_forgotten(void *user, uint64_t id)
{
	thp_observe_forget_cgroup(((struct sync_ctx *)user)->d->obs, id);
}

/*
 * The BPF rows of the cgroups just dropped go back to the maps at once, not
 * when their tombstones do (minutes later): a tenant making and removing
 * cgroups faster would otherwise fill cg_counters, and every cgroup made
 * after would be counted only through the overflow LRU. Their tombstones
 * (made by the sweep) fold what the rows held since the tick's reading.
 */
void tree_sync_reclaim(struct taod *d, uint64_t id, uint64_t now_ms)
{
	struct cg_taken rows;

	if (thp_observe_take_cgroup(d->obs, id, &rows))
		return;
	cgroup_fold_reclaimed(&d->cgroups, id, rows.has_counters ? &rows.counters : NULL,
			      rows.has_sizes && !rows.sizes_kept ? &rows.sizes : NULL, now_ms);
	if (rows.sizes_kept) /* its gauges still count what the dying memcg holds */
		cgroup_fold_late_sizes(&d->cgroups, id, &rows.sizes, now_ms);
}

static void reclaim_rows(struct sync_ctx *s)
{
	for (size_t i = 0; i < s->ngone; i++)
		tree_sync_reclaim(s->d, s->gone[i], s->now);
	s->ngone = 0;
}

static void dropped(struct taod *d, size_t n)
{
	d->dropped_untrimmed += n;
	if (n)
		d->dropped_tick = d->ticks;
}

void tree_sync_trim(struct taod *d)
{
	if (d->dropped_untrimmed < TRIM_AFTER_DROPPED ||
	    d->ticks < d->dropped_tick + TRIM_QUIET_TICKS)
		return;
	malloc_trim(0);
	d->dropped_untrimmed = 0;
}

static int walk_whole(struct sync_ctx *s)
{
	struct taod *d = s->d;
	int r;

	d->tree_walks++;
	r = cgroup_tree_walk(&d->tree, on_cgroup_dir, s);
	if (r)
		log_warn("walking %s: %s", d->tree.mount, strerror(-r));
	dropped(d, cgroup_table_sweep(&d->cgroups, on_cgroup_gone, on_cgroup_forgotten, s, s->now));
	reclaim_rows(s);
	return r;
}

/* The open directory of the parent of the directories made being walked:
 * many made under one parent cost one open of it. */
struct made_parent {
	uint64_t id;
	int fd; /* -errno when it could not be opened */
};

static int parent_dir(struct sync_ctx *s, struct made_parent *mp, const struct cgroup_entry *e)
{
	if (mp->id != e->id) {
		if (mp->fd >= 0)
			close(mp->fd);
		mp->id = e->id;
		mp->fd = cgroup_dir_open(&s->d->tree, e->path);
	}
	return mp->fd;
}

/* A directory made under a known cgroup: false when its parent is unknown.
 * One whose parent went since (it waited in the backlog) went with it. */
static bool walk_made(struct sync_ctx *s, const struct cgroup_event *ev, struct made_parent *mp)
{
	const struct cgroup_entry *parent = cgroup_table_find(&s->d->cgroups, ev->parent_id);
	int fd, r;

	if (!parent)
		return cgroup_fold_follows(&s->d->cgroups, ev->parent_id);
	if (parent->removed)
		return true;
	if (!parent->path)
		return false;
	fd = parent_dir(s, mp, parent);
	if (fd >= 0) {
		/* Its parent's id is where the walk's depth tracking starts. */
		track_parent(s, path_depth(parent->path), parent->id);
		r = cgroup_child_walk(fd, parent->path, ev->name, on_cgroup_dir, s);
	} else {
		r = fd;
	}
	/* Gone again (ENOENT) is no news, unless the hierarchy itself is gone:
	 * then the whole walk's error says the tick is incomplete. */
	if (r == -ENOENT && s->mount_there < 0)
		s->mount_there =
		    !access(s->d->tree.mount, F_OK); /* once a tick: a churn has many */
	if (r == -ENOENT && !s->mount_there)
		return false;
	return r != -ENOMEM;
}

/* This drain's directories made, after those still waiting: in order. */
static bool queue_made(struct cgroup_events *q, const struct cgroup_events *ev)
{
	size_t made = 0;

	for (size_t i = 0; i < ev->n; i++)
		made += ev->v[i].made;
	if (q->n + made > q->cap) {
		size_t cap = q->n + made + q->cap / 2 + 16;
		struct cgroup_event *v = realloc(q->v, cap * sizeof(*v));

		if (!v)
			return false;
		q->v = v;
		q->cap = cap;
	}
	for (size_t i = 0; i < ev->n; i++)
		if (ev->v[i].made)
			q->v[q->n++] = ev->v[i];
	return true;
}

/*
 * The oldest directories made, as many as NEW_DIRS_TICK_MAX and
 * NEW_DIRS_TICK_US allow (at least NEW_DIRS_TICK_MIN); the rest wait for
 * the next tick. False when only a whole walk will do.
 */
static bool walk_backlog(struct sync_ctx *s)
{
	struct cgroup_events *q = &s->d->tree_backlog;
	uint64_t until = monotonic_us() + NEW_DIRS_TICK_US;
	struct made_parent mp = {.fd = -1};
	size_t done = 0;
	bool ok = true;

	while (ok && done < q->n && done < NEW_DIRS_TICK_MAX &&
	       (done < NEW_DIRS_TICK_MIN || monotonic_us() < until))
		ok = walk_made(s, &q->v[done++], &mp);
	if (mp.fd >= 0)
		close(mp.fd);
	if (!ok)
		return false;
	if (done && done < q->n) /* none queued yet: no vector at all */
		memmove(q->v, q->v + done, (q->n - done) * sizeof(*q->v));
	q->n -= done;
	if (q->n)
		log_debug("%zu cgroup directories made are left for the next tick", q->n);
	return true;
}

/* Removals first, then what was made: a name removed and made again
 * between two ticks is a new cgroup. False when only a whole walk will do. */
static bool apply_events(struct sync_ctx *s, const struct cgroup_events *ev)
{
	struct cgroup_child *gone = malloc((ev->n ? ev->n : 1) * sizeof(*gone));
	size_t ngone = 0;

	if (!gone)
		return false;
	for (size_t i = 0; i < ev->n; i++)
		if (!ev->v[i].made)
			gone[ngone++] = (struct cgroup_child){ev->v[i].parent_id, ev->v[i].name};
	s->removed += cgroup_table_mark_removed(&s->d->cgroups, gone, ngone);
	free(gone);
	return queue_made(&s->d->tree_backlog, ev) && walk_backlog(s);
}

/* Known subdirectories of the entries [from, to) of the table. */
static void count_children(const struct cgroup_table *t, size_t from, size_t to, size_t *n)
{
	uint64_t lo = t->v[from]->id, hi = t->v[to - 1]->id;

	for (size_t i = 0; i < t->n; i++) {
		const struct cgroup_entry *e = t->v[i];
		size_t at;

		if (e->removed || e->parent_id < lo || e->parent_id > hi)
			continue;
		at = id_vec_lower_bound(&t->ids, e->parent_id);
		if (at >= from && at < to && t->v[at]->id == e->parent_id)
			n[at - from]++;
	}
}

/*
 * One directory against what the table knows of it: gone, it is marked
 * removed; another inode under its name asks for a whole walk; more or
 * fewer subdirectories than known, it is walked again.
 */
static bool check_dir(struct sync_ctx *s, struct cgroup_entry *e, size_t children)
{
	struct stat st;
	int fd;

	if (e->removed)
		return true;
	/* An id BPF named that no walk found since, its grace over: gone. */
	if (!e->path) {
		e->removed = e->seen_gen != s->d->cgroups.gen;
		s->removed += e->removed;
		return true;
	}
	fd = cgroup_dir_open(&s->d->tree, e->path);
	if (fd == -ENOENT) {
		log_debug("cgroup %s went unannounced", e->path);
		e->removed = true;
		s->removed++;
		return true;
	}
	if (fd < 0)
		return true;
	if (fstat(fd, &st))
		st.st_ino = e->id;
	close(fd);
	if (st.st_ino != e->id)
		return false;
	/* kernfs counts subdirectories in st_nlink (2 + them). */
	if (st.st_nlink < 2 || st.st_nlink - 2 == children)
		return true;
	/* Children made since the drain miscount too: only a count that
	 * stays wrong for a tick without events about it means one was lost. */
	if (s->d->suspect_id != e->id || s->d->suspect_nlink != st.st_nlink) {
		s->d->suspect_id = e->id;
		s->d->suspect_nlink = st.st_nlink;
		return true;
	}
	s->d->suspect_id = 0;
	log_debug("cgroup %s: %llu subdirectories, %zu known: walked again", e->path,
		  (unsigned long long)st.st_nlink - 2, children);
	return walk_below(s, e->path, e->parent_id) != -ENOMEM;
}

/* Last tick's miscounted directory, again. */
static bool check_suspect(struct sync_ctx *s)
{
	struct cgroup_table *t = &s->d->cgroups;
	size_t at = id_vec_lower_bound(&t->ids, s->d->suspect_id), children = 0;

	if (at >= t->n || t->v[at]->id != s->d->suspect_id) {
		s->d->suspect_id = 0; /* dropped meanwhile */
		return true;
	}
	count_children(t, at, at + 1, &children);
	return check_dir(s, t->v[at], children);
}

/* A slice of the table, so each directory is checked once a round. */
static bool verify_slice(struct sync_ctx *s)
{
	struct cgroup_table *t = &s->d->cgroups;
	size_t k = t->n / TREE_VERIFY_TICKS, from, to, *children;
	struct cgroup_entry **slice;
	bool ok = true;

	if (!t->n)
		return true;
	if (s->d->suspect_id && !check_suspect(s))
		return false;
	k = k < VERIFY_MIN ? VERIFY_MIN : k;
	from = s->d->verify_cursor < t->n ? s->d->verify_cursor : 0;
	to = from + k < t->n ? from + k : t->n;
	children = calloc(to - from, sizeof(*children));
	slice = malloc((to - from) * sizeof(*slice));
	if (children && slice) {
		count_children(t, from, to, children);
		/* A walk below inserts entries: the slice is held by pointer. */
		memcpy(slice, &t->v[from], (to - from) * sizeof(*slice));
		for (size_t i = 0; ok && i < to - from; i++)
			ok = check_dir(s, slice[i], children[i]);
		s->d->verify_cursor = to < t->n ? to : 0;
	}
	free(children);
	free(slice);
	return ok;
}

/* BPF named ids the events did not lead to: new this tick, or foldable
 * into an ancestor BPF saw (a whole walk drops it, folded). */
static bool still_unknown(const struct cgroup_table *t)
{
	for (size_t i = 0; i < t->n; i++) {
		const struct cgroup_entry *e = t->v[i];

		if (!e->path && !e->removed && (e->seen_gen == t->gen || e->bpf_ancestors[0]))
			return true;
	}
	return false;
}

int tree_sync(struct taod *d, uint64_t now_ms)
{
	struct sync_ctx s = {.d = d, .now = now_ms, .mount_there = -1};
	const char *whole = NULL; /* why the tree is walked whole */
	int r = 0;

	if (!d->watch.open)
		cgroup_watch_open(&d->watch);
	if (!cgroup_watch_drain(&d->watch, &d->tree_events))
		whole = "inotify events lost (queue overflow, a rename) or unavailable";
	else if (!d->ticks)
		whole = "first tick";
	else if (!apply_events(&s, &d->tree_events))
		whole = "a directory made under an unknown cgroup";
	/* Until the directories made are all walked, the ids BPF names and the
	 * counts of subdirectories are expected to run ahead of the table. */
	else if (!d->tree_backlog.n && d->cgroups.unknown_ids && still_unknown(&d->cgroups))
		whole = "BPF named a cgroup the events did not lead to";
	else if (!d->tree_backlog.n && !verify_slice(&s))
		whole = "a cgroup's name leads to another directory";
	if (!d->tree_backlog.n)
		d->cgroups.unknown_ids = false;
	if (whole) {
		d->tree_backlog.n = 0; /* the whole walk finds them */
		d->removed_left = 0;   /* and drops what is gone */
		log_debug("cgroup tree walked whole: %s", whole);
		r = walk_whole(&s);
	} else if (s.removed || d->removed_left) {
		dropped(d, cgroup_table_sweep_removed(&d->cgroups, on_cgroup_gone,
						      on_cgroup_forgotten, &s, now_ms,
						      GONE_DIRS_TICK_MAX, &d->removed_left));
		reclaim_rows(&s);
	} else {
		cgroup_fold_expire(&d->cgroups, on_cgroup_forgotten, &s, now_ms);
	}
	free(s.at_depth);
	free(s.gone);
	return r;
}
