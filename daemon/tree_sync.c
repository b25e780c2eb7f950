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
	size_t removed; /* entries marked removed this tick */
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

static void on_cgroup_gone(void *user, const struct cgroup_entry *e)
{
	struct sync_ctx *s = user;

	log_debug("cgroup %s (id %llu) is gone", e->path ? e->path : "?",
		  (unsigned long long)e->id);
	cgroup_watch_drop(&s->d->watch, e->watch);
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

/* A directory made under a known cgroup: false when its parent is unknown. */
static bool walk_made(struct sync_ctx *s, const struct cgroup_event *ev)
{
	const struct cgroup_entry *parent = cgroup_table_find(&s->d->cgroups, ev->parent_id);
	char *rel;
	int r;

	if (!parent || !parent->path || parent->removed)
		return false;
	if (asprintf(&rel, "%s/%s", strcmp(parent->path, "/") ? parent->path : "", ev->name) < 0)
		return false;
	r = walk_below(s, rel, parent->id);
	free(rel);
	/* Gone again (ENOENT) is no news, unless the hierarchy itself is gone:
	 * then the whole walk's error says the tick is incomplete. */
	if (r == -ENOENT && access(s->d->tree.mount, F_OK))
		return false;
	return r != -ENOMEM;
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
	for (size_t i = 0; i < ev->n; i++)
		if (ev->v[i].made && !walk_made(s, &ev->v[i]))
			return false;
	return true;
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
	struct sync_ctx s = {.d = d, .now = now_ms};
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
	else if (d->cgroups.unknown_ids && still_unknown(&d->cgroups))
		whole = "BPF named a cgroup the events did not lead to";
	else if (!verify_slice(&s))
		whole = "a cgroup's name leads to another directory";
	d->cgroups.unknown_ids = false;
	if (whole) {
		log_debug("cgroup tree walked whole: %s", whole);
		r = walk_whole(&s);
	} else if (s.removed) {
		dropped(d, cgroup_table_sweep_removed(&d->cgroups, on_cgroup_gone,
						      on_cgroup_forgotten, &s, now_ms));
		reclaim_rows(&s);
	} else {
		cgroup_fold_expire(&d->cgroups, on_cgroup_forgotten, &s, now_ms);
	}
	free(s.at_depth);
	free(s.gone);
	return r;
}
