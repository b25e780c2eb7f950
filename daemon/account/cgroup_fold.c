// SPDX-License-Identifier: GPL-2.0
/* Removed cgroups fold into their nearest live ancestor; see cgroup_fold.h. */
#include "cgroup_fold.h"

#include <stdlib.h>
#include <string.h>

#include "cg_evidence.h"
#include "observe/size_events.h"

/* Tombstone chains are as deep as the removed part of a tree; bounded so
 * a cycle (a moved cgroup) cannot loop. */
#define RESOLVE_HOPS 4096

struct cg_tomb {
	uint64_t id; /* first: id_vec */
	uint64_t into;
	struct cg_evidence seen;	 /* the id's own BPF evidence already folded */
	struct taod_cg_sizes seen_sizes; /* ... and its per-size events */
	uint64_t changed_ms;
	bool doomed; /* among the quietest over FOLD_TOMB_MAX */
};

static struct cg_tomb *tomb_find(const struct cgroup_table *t, uint64_t id)
{
	return id_vec_find(&t->tombs, id);
}

struct cgroup_entry *cgroup_fold_target(const struct cgroup_table *t, uint64_t id)
{
	for (unsigned hop = 0; id && hop < RESOLVE_HOPS; hop++) {
		struct cgroup_entry *e = cgroup_table_find(t, id);
		const struct cg_tomb *tb;

		if (e)
			return e;
		tb = tomb_find(t, id);
		if (!tb)
			return NULL;
		id = tb->into;
	}
	return NULL;
}

static void fold_into(struct cgroup_table *t, uint64_t into, const struct cg_evidence *ev)
{
	struct cgroup_entry *to = cgroup_fold_target(t, into);

	if (to)
		cg_evidence_add(&to->folded, ev);
	else
		t->folded_lost += ev->pmd_split + ev->thp_alloc;
}

static void fold_sizes_into(struct cgroup_table *t, uint64_t into, const struct taod_cg_sizes *s)
{
	struct cgroup_entry *to = cgroup_fold_target(t, into);

	if (to)
		size_events_add(&to->folded_sizes, s); /* nr_anon is the cgroup's own */
}

/* What a removed cgroup's partly mapped gauge moved from @before to @now
 * moves in its live ancestor's adopted_partial (NULL: zeros). */
static void adopt_partial(struct cgroup_table *t, uint64_t into, const __s64 *now,
			  const __s64 *before)
{
	struct cgroup_entry *to = cgroup_fold_target(t, into);

	for (int o = 0; to && o < TAOD_MAX_ORDER; o++)
		to->adopted_partial[o] += (now ? now[o] : 0) - (before ? before[o] : 0);
}

/* A removed cgroup's per-size events, its own and its removed
 * descendants', to its live ancestor. */
static void fold_removed_sizes(struct cgroup_table *t, const struct cgroup_entry *gone)
{
	struct taod_cg_sizes all = gone->folded_sizes;

	size_events_add(&all, &gone->sizes);
	fold_sizes_into(t, gone->parent_id, &all);
}

static void tomb_put(struct cgroup_table *t, const struct cgroup_entry *e, uint64_t now_ms)
{
	struct cg_tomb *tb = tomb_find(t, e->id);

	if (!tb) {
		tb = calloc(1, sizeof(*tb));
		if (!tb)
			return;
		tb->id = e->id;
		if (id_vec_insert(&t->tombs, tb)) {
			free(tb);
			return;
		}
	}
	tb->into = e->parent_id;
	/* Late events come in its cg_counters row: what was spilled folds apart. */
	cg_evidence_of(&e->bpf_row, &tb->seen);
	tb->seen_sizes = e->sizes;
	tb->changed_ms = now_ms;
}

/* The nearest of the ancestors BPF noted for @e that folds somewhere. */
static uint64_t nearest_known_ancestor(const struct cgroup_table *t, const struct cgroup_entry *e)
{
	for (unsigned k = 0; k < TAOD_CG_ANCESTORS && e->bpf_ancestors[k]; k++)
		if (cgroup_fold_target(t, e->bpf_ancestors[k]))
			return e->bpf_ancestors[k];
	return 0;
}

void cgroup_fold_removed(struct cgroup_table *t, struct cgroup_entry *const *gone, size_t n,
			 uint64_t now_ms)
{
	for (size_t i = 0; i < n; i++)
		if (gone[i]->parent_id)
			tomb_put(t, gone[i], now_ms);
	/* Never walked: BPF's ancestry names the parent, once the walked
	 * ones' tombstones are there to lead through. */
	for (size_t i = 0; i < n; i++) {
		if (gone[i]->parent_id || !gone[i]->bpf_ancestors[0])
			continue;
		gone[i]->parent_id = nearest_known_ancestor(t, gone[i]);
		if (gone[i]->parent_id)
			tomb_put(t, gone[i], now_ms);
	}
	for (size_t i = 0; i < n; i++) {
		struct cg_evidence ev;

		if (!gone[i]->parent_id)
			continue; /* never walked, no ancestry: no ancestor known */
		cgroup_entry_evidence(gone[i], &ev);
		/* A gauge is not history: the cumulative folded sum would
		 * keep them stranded forever; it is adopted below. */
		ev.partly_mapped_thps = ev.partly_mapped_mthp_bytes = 0;
		fold_into(t, gone[i]->parent_id, &ev);
		fold_removed_sizes(t, gone[i]);
		adopt_partial(t, gone[i]->parent_id, gone[i]->sizes.nr_partial, NULL);
		adopt_partial(t, gone[i]->parent_id, gone[i]->adopted_partial, NULL);
	}
}

bool cgroup_fold_late_sizes(struct cgroup_table *t, uint64_t id, const struct taod_cg_sizes *s,
			    uint64_t now_ms)
{
	struct cg_tomb *tb = tomb_find(t, id);
	struct taod_cg_sizes delta = {0};

	if (!tb)
		return false;
	if (memcmp(s->nr_partial, tb->seen_sizes.nr_partial, sizeof(s->nr_partial))) {
		adopt_partial(t, tb->into, s->nr_partial, tb->seen_sizes.nr_partial);
		memcpy(tb->seen_sizes.nr_partial, s->nr_partial, sizeof(s->nr_partial));
		tb->changed_ms = now_ms;
	}
	if (size_events_moved(s, &tb->seen_sizes, &delta)) {
		fold_sizes_into(t, tb->into, &delta);
		tb->seen_sizes = *s;
		tb->changed_ms = now_ms;
	}
	return true;
}

static bool evidence_below(const struct cg_evidence *a, const struct cg_evidence *b)
{
	return a->thp_alloc < b->thp_alloc || a->pmd_split < b->pmd_split ||
	       a->split_pages < b->split_pages;
}

bool cgroup_fold_late(struct cgroup_table *t, uint64_t id, const struct taod_cg_counters *c,
		      uint64_t now_ms)
{
	struct cg_tomb *tb = tomb_find(t, id);
	struct cg_evidence now, delta;

	if (!tb)
		return false;
	cg_evidence_of(c, &now);
	if (evidence_below(&now, &tb->seen)) /* BPF's entry was made anew */
		memset(&tb->seen, 0, sizeof(tb->seen));
	delta = (struct cg_evidence){
	    .thp_alloc = now.thp_alloc - tb->seen.thp_alloc,
	    .thp_fault =
		now.thp_fault > tb->seen.thp_fault ? now.thp_fault - tb->seen.thp_fault : 0,
	    .pmd_split = now.pmd_split - tb->seen.pmd_split,
	    .split_pages = now.split_pages - tb->seen.split_pages,
	};
	if (delta.thp_alloc || delta.pmd_split || delta.split_pages) {
		fold_into(t, tb->into, &delta);
		tb->seen = now;
		tb->changed_ms = now_ms;
	}
	return true;
}

bool cgroup_fold_spilled(struct cgroup_table *t, uint64_t id, const struct taod_cg_counters *c,
			 uint64_t now_ms)
{
	struct cg_tomb *tb = tomb_find(t, id);
	struct cg_evidence ev;

	if (!tb)
		return false;
	cg_evidence_of(c, &ev); /* drained: all of it is new */
	if (ev.thp_alloc || ev.pmd_split || ev.split_pages) {
		fold_into(t, tb->into, &ev);
		tb->changed_ms = now_ms;
	}
	return true;
}

bool cgroup_fold_reclaimed(struct cgroup_table *t, uint64_t id, const struct taod_cg_counters *c,
			   const struct taod_cg_sizes *s, uint64_t now_ms)
{
	struct cg_tomb *tb = tomb_find(t, id);

	if (!tb)
		return false;
	/* What came since the tick's reading, folded as any late event is,
	 * and BPF's next row for the id starts from zero: so does what it is
	 * measured against, or its first events would be taken as seen. */
	if (c) {
		cgroup_fold_late(t, id, c, now_ms);
		memset(&tb->seen, 0, sizeof(tb->seen));
	}
	if (s) {
		cgroup_fold_late_sizes(t, id, s, now_ms);
		memset(&tb->seen_sizes, 0, sizeof(tb->seen_sizes));
	}
	return true;
}

struct expire_ctx {
	bool cut;	       /* any tombstone old enough to go */
	uint64_t keep_from_ms; /* then those changed since stay */
	cgroup_forget_fn forget;
	void *ctx;
};

static int tomb_keep(void *ctx, void *item)
{
	const struct expire_ctx *ec = ctx;
	const struct cg_tomb *tb = item;

	return !tb->doomed && (!ec->cut || tb->changed_ms >= ec->keep_from_ms);
}

static void tomb_drop(void *ctx, void *item)
{
	struct expire_ctx *ec = ctx;

	if (ec->forget)
		ec->forget(ec->ctx, ((struct cg_tomb *)item)->id);
	free(item);
}

static int quietest_first(const void *a, const void *b)
{
	const struct cg_tomb *x = *(struct cg_tomb *const *)a, *y = *(struct cg_tomb *const *)b;

	if (x->changed_ms != y->changed_ms)
		return x->changed_ms < y->changed_ms ? -1 : 1;
	return x->id < y->id ? -1 : x->id > y->id;
}

/* Marks the quietest tombstones over FOLD_TOMB_MAX. */
static void doom_excess(struct cgroup_table *t)
{
	size_t n = t->tombs.n;
	struct cg_tomb **by_age = malloc(n * sizeof(*by_age));

	if (!by_age)
		return;
	memcpy(by_age, t->tombs.v, n * sizeof(*by_age));
	qsort(by_age, n, sizeof(*by_age), quietest_first);
	for (size_t i = 0; i < n - FOLD_TOMB_MAX; i++)
		by_age[i]->doomed = true;
	free(by_age);
}

void cgroup_fold_expire(struct cgroup_table *t, cgroup_forget_fn forget, void *ctx, uint64_t now_ms)
{
	struct expire_ctx ec = {.forget = forget, .ctx = ctx};

	if (now_ms > FOLD_TOMB_IDLE_MS) {
		ec.cut = true;
		ec.keep_from_ms = now_ms - FOLD_TOMB_IDLE_MS;
	}
	if (t->tombs.n > FOLD_TOMB_MAX)
		doom_excess(t);
	/* Before any goes (the chains resolve through them): what the
	 * tombstones going still counted partly mapped is no longer known. */
	for (size_t i = 0; i < t->tombs.n; i++) {
		struct cg_tomb *tb = t->tombs.v[i];

		if (!tomb_keep(&ec, tb))
			adopt_partial(t, tb->into, NULL, tb->seen_sizes.nr_partial);
	}
	id_vec_filter(&t->tombs, tomb_keep, tomb_drop, &ec);
}

bool cgroup_fold_follows(const struct cgroup_table *t, uint64_t id)
{
	return tomb_find(t, id) != NULL;
}

size_t cgroup_fold_tombstones(const struct cgroup_table *t)
{
	return t->tombs.n;
}

void cgroup_fold_free(struct cgroup_table *t)
{
	for (size_t i = 0; i < t->tombs.n; i++)
		free(t->tombs.v[i]);
	free(t->tombs.v);
	memset(&t->tombs, 0, sizeof(t->tombs));
}
