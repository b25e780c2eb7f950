// SPDX-License-Identifier: GPL-2.0
/*
 * One history batch: a sample per cgroup and the machine figures
 * (history_machine.c), in slices of a transaction each. The writer's
 * memory of each cgroup is rebuilt per batch and a slice's part of it kept
 * only when the slice commits, so a failed slice leaves memory and
 * database in step.
 */
#include <assert.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "history_columns.h"
#include "history_internal.h"
#include "common/log.h"
#include "account/size_held.h"
#include "common/clock.h"

static const struct hist_cg *remembered(const struct history *h, uint64_t id)
{
	size_t lo = 0, hi = h->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (h->cgs[mid].id < id)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < h->n && h->cgs[lo].id == id ? &h->cgs[lo] : NULL;
}

/* Continues the newest row of (path, id) from an earlier run, if any. */
static int continue_row(struct history *h, struct hist_cg *c)
{
	sqlite3_stmt *st = hst(h, HS_FIND_CG);
	const unsigned char *cls;

	sqlite3_bind_text(st, 1, c->path, -1, SQLITE_STATIC);
	sqlite3_bind_int64(st, 2, (sqlite3_int64)c->id);
	if (sqlite3_step(st) != SQLITE_ROW)
		return -ENOENT;
	c->cg = sqlite3_column_int64(st, 0);
	cls = sqlite3_column_text(st, 1);
	snprintf(c->class, sizeof(c->class), "%s", cls ? (const char *)cls : "");
	st = hst(h, HS_LAST_SAMPLE);
	sqlite3_bind_int64(st, 1, c->cg);
	if (sqlite3_step(st) == SQLITE_ROW) {
		int col = 0;

		/* The columns of hist_last_sample_sql: thp_alloc, the kept counters, t_ms. */
		c->sum_alloc = (uint64_t)sqlite3_column_int64(st, col++);
		for (size_t i = 0; i < CG_NCOUNTERS; i++)
			if (hist_kept(&cg_counters[i], HISTORY_SCHEMA_VERSION))
				c->sum[i] = (uint64_t)sqlite3_column_int64(st, col++);
		c->last_t_ms = (uint64_t)sqlite3_column_int64(st, col);
	}
	return 0;
}

static int new_row(struct history *h, struct hist_cg *c, uint64_t wall_ms)
{
	sqlite3_stmt *st = hst(h, HS_INSERT_CG);

	sqlite3_bind_text(st, 1, c->path, -1, SQLITE_STATIC);
	sqlite3_bind_int64(st, 2, (sqlite3_int64)c->id);
	sqlite3_bind_int64(st, 3, (sqlite3_int64)wall_ms);
	if (hst_done(h, st))
		return -EIO;
	c->cg = sqlite3_last_insert_rowid(h->db);
	return 0;
}

/* Fills @c for entry @e: carried over, continued from the database, or new. */
static int resolve(struct history *h, const struct cgroup_entry *e, struct hist_cg *c,
		   uint64_t wall_ms)
{
	const struct hist_cg *old = remembered(h, e->id);

	memset(c, 0, sizeof(*c));
	c->id = e->id;
	c->entry_first_seen_ms = e->first_seen_ms;
	c->path = strdup(e->path);
	if (!c->path)
		return -ENOMEM;
	if (old && old->entry_first_seen_ms == e->first_seen_ms && !strcmp(old->path, e->path)) {
		char *path = c->path;

		*c = *old;
		c->path = path;
		return 0;
	}
	/* Same id seen anew in this run (reused id, or renamed): a new row. */
	if (!old && !continue_row(h, c))
		return 0;
	c->raw_alloc = c->sum_alloc = c->last_t_ms = 0;
	memset(c->raw, 0, sizeof(c->raw));
	memset(c->sum, 0, sizeof(c->sum));
	memset(&c->raw_sizes, 0, sizeof(c->raw_sizes));
	c->class[0] = '\0';
	return new_row(h, c, wall_ms);
}

/* Counters restart at zero with the daemon or a reused id: then all is new. */
static uint64_t delta(uint64_t *last, uint64_t now)
{
	uint64_t d = now >= *last ? now - *last : now;

	*last = now;
	return d;
}

static void bind_u64_or_null(sqlite3_stmt *st, int i, bool ok, uint64_t v)
{
	if (ok)
		sqlite3_bind_int64(st, i, (sqlite3_int64)v);
	else
		sqlite3_bind_null(st, i);
}

/*
 * Binds the counter columns of hist_insert_sample_sql from @col on: the
 * cumulative series of thp_alloc and the kept counters, then their deltas
 * since the last batch. Returns the next column.
 */
static int bind_counters(sqlite3_stmt *st, int col, const struct cgroup_entry *e, struct hist_cg *c)
{
	uint64_t d_alloc = delta(&c->raw_alloc, cg_thp_allocs(&e->counters)), d[CG_NCOUNTERS];

	c->sum_alloc += d_alloc;
	sqlite3_bind_int64(st, col++, (sqlite3_int64)c->sum_alloc);
	for (size_t i = 0; i < CG_NCOUNTERS; i++) {
		if (!hist_kept(&cg_counters[i], HISTORY_SCHEMA_VERSION))
			continue;
		d[i] = delta(&c->raw[i], cg_counter_value(&e->counters, &cg_counters[i]));
		c->sum[i] += d[i];
		sqlite3_bind_int64(st, col++, (sqlite3_int64)c->sum[i]);
	}
	sqlite3_bind_int64(st, col++, (sqlite3_int64)d_alloc);
	for (size_t i = 0; i < CG_NCOUNTERS; i++)
		if (hist_kept(&cg_counters[i], HISTORY_SCHEMA_VERSION))
			sqlite3_bind_int64(st, col++, (sqlite3_int64)d[i]);
	return col;
}

static int insert_sample(struct history *h, const struct cgroup_entry *e, struct hist_cg *c,
			 uint64_t wall_ms, const char *cls)
{
	sqlite3_stmt *st = hst(h, HS_INSERT_SAMPLE);

	sqlite3_bind_int64(st, 1, c->cg);
	sqlite3_bind_int64(st, 2, (sqlite3_int64)wall_ms);
	sqlite3_bind_int64(st, 3, h->run);
	sqlite3_bind_int64(
	    st, 4,
	    c->last_t_ms && wall_ms > c->last_t_ms ? (sqlite3_int64)(wall_ms - c->last_t_ms) : 0);
	bind_u64_or_null(st, 5, e->mem_ok, e->mem.anon_bytes);
	bind_u64_or_null(st, 6, e->mem_ok, e->mem.thp_bytes);
	if (e->coverage_pct >= 0)
		sqlite3_bind_double(st, 7, e->coverage_pct);
	else
		sqlite3_bind_null(st, 7);
	bind_text_or_null(st, bind_counters(st, 8, e, c), cls);
	c->last_t_ms = wall_ms;
	return hst_done(h, st);
}

/* Whether the folios @e holds of @order moved since its last row of that
 * size (and notes them for the next). */
static bool held_moved(const struct cgroup_entry *e, struct hist_cg *c, int order)
{
	bool moved = c->raw_sizes.nr_anon[order] != e->sizes.nr_anon[order];

	c->raw_sizes.nr_anon[order] = e->sizes.nr_anon[order];
	return moved;
}

/* A row per folio size whose counts or held bytes moved since the
 * cgroup's last batch; the held bytes and their coverage as now. */
static int insert_sizes(struct history *h, const struct cgroup_entry *e, struct hist_cg *c,
			uint64_t wall_ms)
{
	struct taod_cg_sizes d;

	/* What each event moved since the batch before, every order at once. */
	size_events_moved(&e->sizes, &c->raw_sizes, &d);
	size_events_copy(&c->raw_sizes, &e->sizes);
	for (int order = 2; order < TAOD_MAX_ORDER; order++) {
		double pct = size_coverage_pct(e, order);
		sqlite3_stmt *st;

		if (!held_moved(e, c, order) && !size_any(&d, order))
			continue;
		st = hst(h, HS_INSERT_SIZE);
		sqlite3_bind_int64(st, 1, c->cg);
		sqlite3_bind_int64(st, 2, (sqlite3_int64)wall_ms);
		sqlite3_bind_int64(st, 3, (sqlite3_int64)size_kb_of(order));
		sqlite3_bind_int64(st, 4, (sqlite3_int64)size_held_bytes(e, order));
		if (pct >= 0)
			sqlite3_bind_double(st, 5, pct);
		else
			sqlite3_bind_null(st, 5);
		for (int ev = 0; ev < SIZE_NEVENTS; ev++)
			sqlite3_bind_int64(st, 6 + ev,
					   (sqlite3_int64)size_count(&d, &size_events[ev], order));
		if (hst_done(h, st))
			return -EIO;
	}
	return 0;
}

static int update_cgroup(struct history *h, struct hist_cg *c, uint64_t wall_ms, const char *cls)
{
	sqlite3_stmt *st;

	if (cls && *cls && strcmp(cls, c->class)) {
		st = hst(h, HS_INSERT_CHANGE);
		sqlite3_bind_int64(st, 1, c->cg);
		sqlite3_bind_int64(st, 2, (sqlite3_int64)wall_ms);
		bind_text_or_null(st, 3, c->class);
		sqlite3_bind_text(st, 4, cls, -1, SQLITE_STATIC);
		if (hst_done(h, st))
			return -EIO;
		snprintf(c->class, sizeof(c->class), "%s", cls);
	}
	st = hst(h, HS_UPDATE_CG);
	sqlite3_bind_int64(st, 1, c->cg);
	sqlite3_bind_int64(st, 2, (sqlite3_int64)wall_ms);
	bind_text_or_null(st, 3, c->class);
	return hst_done(h, st);
}

/* Room in the batch's memory for @more cgroups. */
static int reserve_next(struct history *h, size_t more)
{
	size_t cap = h->next_cap;
	struct hist_cg *v;

	if (h->nnext + more <= cap)
		return 0;
	cap = h->nnext + more > 2 * cap ? h->nnext + more : 2 * cap;
	v = realloc(h->next, cap * sizeof(*v));
	if (!v)
		return -ENOMEM;
	h->next = v;
	h->next_cap = cap;
	return 0;
}

/* Whether a slice that took @taken cgroups may take one more. */
static bool slice_has_room(const struct history_slice *sl, size_t taken)
{
	if (taken >= sl->max)
		return false;
	return taken < HISTORY_SLICE_MIN || !sl->until_us || monotonic_us() < sl->until_us;
}

/* Cgroups from entry @i on, as @sl allows; *@i ends past the last one taken. */
static int record_cgroups(struct history *h, const struct cgroup_table *t, size_t *i,
			  const struct history_slice *sl, history_class_fn class_of, void *ctx)
{
	for (size_t taken = 0; *i < t->n && slice_has_room(sl, taken); ++*i, taken++) {
		const struct cgroup_entry *e = t->v[*i];
		const char *cls = class_of ? class_of(ctx, e) : NULL;
		struct hist_cg *c = &h->next[h->nnext];
		int r;

		if (!e->path)
			continue; /* the walk has not named it yet */
		r = resolve(h, e, c, h->batch_ms);
		if (c->path)
			h->nnext++;
		if (r || (r = insert_sample(h, e, c, h->batch_ms, cls)) ||
		    (r = insert_sizes(h, e, c, h->batch_ms)) ||
		    (r = update_cgroup(h, c, h->batch_ms, cls)))
			return r;
	}
	return 0;
}

/* The batch complete: a row saying so, with the machine figures. */
static int record_complete(struct history *h, const struct machine_stats *m)
{
	sqlite3_stmt *st = hst(h, HS_INSERT_BATCH);
	int r = m ? history_record_machine(h, m, h->batch_ms) : 0;

	if (r)
		return r;
	sqlite3_bind_int64(st, 1, (sqlite3_int64)h->batch_ms);
	sqlite3_bind_int64(st, 2, (sqlite3_int64)h->nnext);
	return hst_done(h, st);
}

/*
 * Ends the open batch. Complete: its memory replaces the last batch's.
 * Abandoned: what its committed slices wrote is remembered, and for the
 * cgroups it had not reached, the last batch's memory (the database holds
 * nothing newer of them), unless there is no room for it.
 */
static void close_batch(struct history *h, bool complete)
{
	size_t k = 0, moved = h->n;

	if (!complete) {
		while (k < h->n && h->cgs[k].id <= h->batch_after)
			k++;
		if (k < h->n && !reserve_next(h, h->n - k)) {
			memcpy(&h->next[h->nnext], &h->cgs[k], (h->n - k) * sizeof(*h->cgs));
			h->nnext += h->n - k;
			moved = k;
		}
	}
	for (size_t i = 0; i < moved; i++)
		free(h->cgs[i].path);
	free(h->cgs);
	h->cgs = h->next;
	h->n = h->nnext;
	h->next = NULL;
	h->nnext = h->next_cap = 0;
	h->batch_open = false;
	h->batch_after = 0;
}

/* One slice in one transaction; its memory kept only when it commits. */
static int record_slice(struct history *h, const struct cgroup_table *t,
			const struct machine_stats *m, history_class_fn class_of, void *ctx,
			const struct history_slice *sl, bool *complete)
{
	/* The first entry the batch has not reached (cgroup ids start at 1). */
	size_t i = id_vec_lower_bound(&t->ids, h->batch_after + 1), kept = h->nnext;
	int r;

	if ((r = reserve_next(h, t->n - i < sl->max ? t->n - i : sl->max)))
		return r;
	if (sqlite3_exec(h->db, "BEGIN IMMEDIATE", NULL, NULL, NULL) != SQLITE_OK)
		return history_failed(h, "starting a batch");
	r = record_cgroups(h, t, &i, sl, class_of, ctx);
	*complete = i >= t->n;
	if (!r && *complete)
		r = record_complete(h, m);
	if (!r && sqlite3_exec(h->db, "COMMIT", NULL, NULL, NULL) != SQLITE_OK)
		r = history_failed(h, "commit");
	if (r) {
		sqlite3_exec(h->db, "ROLLBACK", NULL, NULL, NULL);
		for (size_t k = kept; k < h->nnext; k++)
			free(h->next[k].path);
		h->nnext = kept;
		return r;
	}
	if (i > 0)
		h->batch_after = t->v[i - 1]->id;
	return 0;
}

int history_record_slice(struct history *h, const struct cgroup_table *t, uint64_t wall_ms,
			 const struct machine_stats *m, history_class_fn class_of, void *ctx,
			 const struct history_slice *sl)
{
	assert(h);
	assert(t);
	assert(sl && sl->max > 0);

	bool complete = false;
	int r;

	if (!h->batch_open) {
		h->batch_open = true;
		h->batch_ms = wall_ms;
		h->batch_after = 0;
		/* One block for the batch's memory, sized as the table is now,
		 * not grown slice by slice. */
		(void)reserve_next(h, t->n + 1);
	}
	r = record_slice(h, t, m, class_of, ctx, sl, &complete);
	if (r) {
		close_batch(h, false);
		return r;
	}
	if (!complete)
		return HISTORY_MORE;
	close_batch(h, true);
	if (m)
		history_machine_committed(h, m);
	return 0;
}

int history_record(struct history *h, const struct cgroup_table *t, uint64_t wall_ms,
		   const struct machine_stats *m, history_class_fn class_of, void *ctx)
{
	static const struct history_slice whole = {.max = SIZE_MAX};

	return history_record_slice(h, t, wall_ms, m, class_of, ctx, &whole);
}
