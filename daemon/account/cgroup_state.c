// SPDX-License-Identifier: GPL-2.0
#include "cgroup_state.h"
#include "cgroup_fold.h"
#include "observe/cg_counters.h"

#include <assert.h>
#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

void cgroup_table_init(struct cgroup_table *t, size_t ring_cap)
{
	memset(t, 0, sizeof(*t));
	t->ring_cap = ring_cap ? ring_cap : 1;
}

static void entry_free(struct cgroup_entry *e)
{
	free(e->path);
	free(e->ring);
	free(e);
}

void cgroup_table_free(struct cgroup_table *t)
{
	for (size_t i = 0; i < t->n; i++)
		entry_free(t->v[i]);
	free(t->v);
	cgroup_fold_free(t);
	memset(t, 0, sizeof(*t));
}

/* Moves @e's newest samples, oldest first, into a ring of @cap. */
static int ring_resize(struct cgroup_entry *e, size_t cap)
{
	struct cg_sample *ring = calloc(cap, sizeof(*ring));
	size_t keep = e->ring_len < cap ? e->ring_len : cap;

	if (!ring)
		return -ENOMEM;
	for (size_t i = 0; i < keep; i++)
		ring[i] = e->ring[(e->ring_head + e->ring_cap - keep + i) % e->ring_cap];
	free(e->ring);
	e->ring = ring;
	e->ring_cap = cap;
	e->ring_len = keep;
	e->ring_head = keep % cap;
	return 0;
}

int cgroup_table_set_ring_cap(struct cgroup_table *t, size_t ring_cap)
{
	if (!ring_cap)
		ring_cap = 1;
	if (ring_cap == t->ring_cap)
		return 0;
	t->ring_cap = ring_cap;
	for (size_t i = 0; i < t->n; i++)
		if (ring_resize(t->v[i], ring_cap))
			return -ENOMEM;
	return 0;
}

void cgroup_table_begin_tick(struct cgroup_table *t)
{
	t->gen++;
}

_Static_assert(offsetof(struct cgroup_entry, id) == 0, "id_vec needs the id first");

static struct cgroup_entry *insert(struct cgroup_table *t, uint64_t id, uint64_t now_ms)
{
	struct cgroup_entry *e = calloc(1, sizeof(*e));

	if (!e)
		return NULL;
	e->ring = calloc(t->ring_cap, sizeof(*e->ring));
	e->ring_cap = t->ring_cap;
	e->id = id;
	e->first_seen_ms = now_ms;
	e->coverage_pct = -1;
	e->psi_some = -1;
	e->memstat_due = true;
	if (!e->ring || id_vec_insert(&t->ids, e)) {
		entry_free(e);
		return NULL;
	}
	/*
	 * BPF counts a cgroup from its first event on, and taod's first tick
	 * has sampled every cgroup there was: one that turns up later had all
	 * its events since the last tick. Without this zero sample its first
	 * sample would hold them all and every window would start after them:
	 * a cgroup made, abused and left within one tick would never be judged.
	 */
	if (t->sampled) {
		e->ring[0].t_ms = t->last_sample_ms;
		e->ring_head = 1 % e->ring_cap;
		e->ring_len = 1;
	}
	return e;
}

struct cgroup_entry *cgroup_table_touch(struct cgroup_table *t, uint64_t id, const char *path,
					uint64_t parent_id, uint64_t now_ms)
{
	assert(t && path);

	struct cgroup_entry *e = cgroup_table_find(t, id);

	if (!e && !(e = insert(t, id, now_ms)))
		return NULL;
	if (!e->path || strcmp(e->path, path)) {
		char *p = strdup(path);

		if (!p)
			return e;
		free(e->path);
		e->path = p;
		t->tree_gen++;
	}
	if (e->parent_id != parent_id) {
		e->parent_id = parent_id;
		t->tree_gen++;
	}
	e->seen_gen = t->gen;
	e->removed = false; /* there after all (made again under the name) */
	return e;
}

/* The entry's counters from its two BPF sources; memory.stat is read again
 * when they moved. */
static void update_counters(struct cgroup_entry *e)
{
	struct taod_cg_counters c = e->bpf_row;

	cg_counters_add(&c, &e->bpf_spilled);
	if (memcmp(&e->counters, &c, sizeof(c))) {
		e->counters = c;
		e->memstat_due = true;
	}
}

/* A BPF counter's cgroup: known, or new with one walk's grace (the next
 * walk decides); NULL when out of memory. */
static struct cgroup_entry *counted(struct cgroup_table *t, uint64_t id, uint64_t now_ms)
{
	struct cgroup_entry *e = cgroup_table_find(t, id);

	if (e) {
		/* Past its grace and foldable: a walk now, which drops it if
		 * it is gone, rather than at the next safety walk. */
		t->unknown_ids |= !e->path && e->bpf_ancestors[0];
		return e;
	}
	e = insert(t, id, now_ms);
	if (!e)
		return NULL;
	e->seen_gen = t->gen;
	t->unknown_ids = true;
	return e;
}

/* @c as the cgroup's cg_counters row, or (@spilled) drained from cg_overflow. */
static struct cgroup_entry *take_counters(struct cgroup_table *t, uint64_t id,
					  const struct taod_cg_counters *c, uint64_t now_ms,
					  bool spilled)
{
	struct cgroup_entry *e = cgroup_table_find(t, id);

	if (!e && (spilled ? cgroup_fold_spilled : cgroup_fold_late)(t, id, c, now_ms))
		return NULL;
	e = counted(t, id, now_ms);
	if (!e)
		return NULL;
	if (spilled)
		cg_counters_add(&e->bpf_spilled, c);
	else
		e->bpf_row = *c;
	update_counters(e);
	return e;
}

struct cgroup_entry *cgroup_table_set_counters(struct cgroup_table *t, uint64_t id,
					       const struct taod_cg_counters *c, uint64_t now_ms)
{
	return take_counters(t, id, c, now_ms, false);
}

struct cgroup_entry *cgroup_table_add_spilled(struct cgroup_table *t, uint64_t id,
					      const struct taod_cg_counters *c, uint64_t now_ms)
{
	return take_counters(t, id, c, now_ms, true);
}

bool cgroup_entry_wants_ancestry(const struct cgroup_entry *e)
{
	return !e->path && !e->parent_id && !e->ancestry_asked;
}

void cgroup_entry_set_ancestry(struct cgroup_entry *e, const struct taod_cg_ancestry *a)
{
	e->ancestry_asked = true;
	for (unsigned k = 0; a && k < TAOD_CG_ANCESTORS; k++)
		e->bpf_ancestors[k] = a->id[k];
}

void cgroup_entry_set_memstat(struct cgroup_entry *e, const struct memstat *m, bool ok)
{
	e->mem_ok = ok;
	if (ok)
		e->mem = *m;
	e->coverage_pct = ok ? memstat_coverage_pct(m) : -1;
}

double cg_split_ratio(uint64_t splits, uint64_t allocs)
{
	return allocs ? (double)splits / (double)allocs : 0.0;
}

double rate_per_s(uint64_t older, uint64_t newer, uint64_t span_ms)
{
	if (!span_ms || newer < older)
		return 0.0;
	return (double)(newer - older) * 1000.0 / (double)span_ms;
}

/* Sample @back steps before the newest (0 = newest). */
static const struct cg_sample *ring_at(const struct cgroup_entry *e, size_t cap, size_t back)
{
	size_t newest = (e->ring_head + cap - 1) % cap;

	return &e->ring[(newest + cap - back) % cap];
}

/* Oldest sample not older than @window_ms before the newest. */
static size_t window_start(const struct cgroup_entry *e, size_t cap, uint64_t window_ms)
{
	uint64_t newest = ring_at(e, cap, 0)->t_ms;
	size_t back = 0;

	while (back + 1 < e->ring_len && newest - ring_at(e, cap, back + 1)->t_ms <= window_ms)
		back++;
	return back;
}

static void update_rates(struct cgroup_entry *e, size_t cap, uint64_t window_ms)
{
	size_t back = window_start(e, cap, window_ms);
	const struct cg_sample *now = ring_at(e, cap, 0), *then = ring_at(e, cap, back);
	uint64_t span = now->t_ms - then->t_ms;

	e->alloc_rate = rate_per_s(then->thp_alloc, now->thp_alloc, span);
	e->split_rate = rate_per_s(then->pmd_split, now->pmd_split, span);
}

/*
 * Whether @e's rates stay zero with a sample of @allocs and @splits: they
 * were zero, so every sample in the last window held the newest counts,
 * and the new one holds them too. Most cgroups are idle: their ring is
 * not walked back every tick.
 */
static bool stays_idle(const struct cgroup_entry *e, uint64_t allocs, uint64_t splits)
{
	const struct cg_sample *last;

	if (!e->ring_len || e->alloc_rate != 0.0 || e->split_rate != 0.0)
		return false;
	last = ring_at(e, e->ring_cap, 0);
	return last->thp_alloc == allocs && last->pmd_split == splits;
}

void cgroup_table_sample(struct cgroup_table *t, uint64_t now_ms, uint64_t rate_window_ms)
{
	for (size_t i = 0; i < t->n; i++) {
		struct cgroup_entry *e = t->v[i];
		struct cg_sample *s = &e->ring[e->ring_head];
		bool idle = stays_idle(e, cg_thp_allocs(&e->counters), e->counters.pmd_split);

		s->t_ms = now_ms;
		s->thp_alloc = cg_thp_allocs(&e->counters);
		s->pmd_split = e->counters.pmd_split;
		s->anon_bytes = e->mem_ok ? e->mem.anon_bytes : 0;
		s->thp_bytes = e->mem_ok ? e->mem.thp_bytes : 0;
		e->ring_head = (e->ring_head + 1) % e->ring_cap;
		if (e->ring_len < e->ring_cap)
			e->ring_len++;
		if (!idle)
			update_rates(e, e->ring_cap, rate_window_ms);
	}
	t->sampled = true;
	t->last_sample_ms = now_ms;
}

struct sweep_ctx {
	const struct cgroup_table *t;
	bool whole;	     /* a whole walk: what it did not see is gone too */
	size_t budget, left; /* entries this sweep may drop; gone ones kept */
	cgroup_gone_fn gone;
	void *ctx;
	struct cgroup_entry **dropped;
	size_t ndropped;
};

/* Whether @item stays: seen, or gone past the sweep's budget. */
static int seen_this_tick(void *ctx, void *item)
{
	struct sweep_ctx *sc = ctx;
	const struct cgroup_entry *e = item;

	if (!e->removed && (!sc->whole || e->seen_gen == sc->t->gen))
		return 1;
	if (!sc->budget) {
		sc->left++;
		return 1; /* for a later sweep */
	}
	sc->budget--;
	return 0;
}

/* Kept aside until every dropped entry has its tombstone: a child and
 * its parent removed in one tick both fold into the grandparent. */
static void set_aside(void *ctx, void *item)
{
	struct sweep_ctx *sc = ctx;

	if (sc->gone)
		sc->gone(sc->ctx, item);
	sc->dropped[sc->ndropped++] = item;
}

static size_t sweep(struct cgroup_table *t, bool whole, cgroup_gone_fn gone,
		    cgroup_forget_fn forget, void *ctx, uint64_t now_ms, size_t max, size_t *left)
{
	struct sweep_ctx sc = {.t = t, .whole = whole, .budget = max, .gone = gone, .ctx = ctx};

	sc.dropped = malloc((t->n ? t->n : 1) * sizeof(*sc.dropped));
	if (!sc.dropped)
		return 0; /* nothing dropped: the next sweep tries again */
	id_vec_filter(&t->ids, seen_this_tick, set_aside, &sc);
	if (sc.ndropped)
		t->tree_gen++;
	cgroup_fold_removed(t, sc.dropped, sc.ndropped, now_ms);
	for (size_t i = 0; i < sc.ndropped; i++)
		entry_free(sc.dropped[i]);
	free(sc.dropped);
	cgroup_fold_expire(t, forget, ctx, now_ms);
	if (left)
		*left = sc.left;
	return sc.ndropped;
}

size_t cgroup_table_sweep(struct cgroup_table *t, cgroup_gone_fn gone, cgroup_forget_fn forget,
			  void *ctx, uint64_t now_ms)
{
	return sweep(t, true, gone, forget, ctx, now_ms, SIZE_MAX, NULL);
}

size_t cgroup_table_sweep_removed(struct cgroup_table *t, cgroup_gone_fn gone,
				  cgroup_forget_fn forget, void *ctx, uint64_t now_ms, size_t max,
				  size_t *left)
{
	assert(max > 0);
	return sweep(t, false, gone, forget, ctx, now_ms, max, left);
}

static void add_coverage(struct cg_window *w, const struct cg_sample *s, double *sum, size_t *n)
{
	double pct;

	if (!s->anon_bytes)
		return;
	pct = 100.0 * (double)s->thp_bytes / (double)s->anon_bytes;
	if (pct > 100.0)
		pct = 100.0;
	if (*n == 0 || pct < w->coverage_min)
		w->coverage_min = pct;
	if (*n == 0 || pct > w->coverage_max)
		w->coverage_max = pct;
	*sum += pct;
	(*n)++;
}

/* The window from the sample @back steps before the newest to the newest. */
static int fill_window(const struct cgroup_entry *e, size_t back, struct cg_window *w)
{
	const struct cg_sample *now = ring_at(e, e->ring_cap, 0);
	const struct cg_sample *then = ring_at(e, e->ring_cap, back);
	size_t ncov = 0;
	double sum = 0;

	w->end_ms = now->t_ms;
	w->span_ms = now->t_ms - then->t_ms;
	w->thp_alloc = now->thp_alloc - then->thp_alloc;
	w->pmd_split = now->pmd_split - then->pmd_split;
	w->samples = back + 1;
	for (size_t i = 0; i <= back; i++)
		add_coverage(w, ring_at(e, e->ring_cap, i), &sum, &ncov);
	if (ncov)
		w->coverage_mean = sum / (double)ncov;
	return 0;
}

static int empty_window(const struct cgroup_entry *e, struct cg_window *w)
{
	memset(w, 0, sizeof(*w));
	w->coverage_min = w->coverage_max = w->coverage_mean = -1;
	return e->ring_len ? 0 : -ENODATA;
}

int cgroup_entry_window(const struct cgroup_entry *e, uint64_t window_ms, struct cg_window *w)
{
	assert(e && w);

	int r = empty_window(e, w);

	return r ? r : fill_window(e, window_start(e, e->ring_cap, window_ms), w);
}

int cgroup_entry_window_from(const struct cgroup_entry *e, uint64_t from_ms, struct cg_window *w)
{
	size_t back = 0;
	int r = empty_window(e, w);

	if (r)
		return r;
	while (back + 1 < e->ring_len && ring_at(e, e->ring_cap, back)->t_ms > from_ms)
		back++;
	return fill_window(e, back, w);
}

uint64_t cgroup_entry_oldest_ms(const struct cgroup_entry *e)
{
	return e->ring_len ? ring_at(e, e->ring_cap, e->ring_len - 1)->t_ms : 0;
}
