// SPDX-License-Identifier: GPL-2.0
/*
 * Reads a time window of the history database, read-only: it works with
 * taod stopped or crashed (SQLite replays a committed WAL on open and
 * ignores a torn tail).
 */
#define _GNU_SOURCE
#include <assert.h>
#include <errno.h>
#include <fnmatch.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "history_columns.h"
#include "report_internal.h"
#include "history.h"

/* The first sum column of load_cgroups' query. */
#define SUMS_COL 10

static double real_or_unknown(sqlite3_stmt *st, int col)
{
	return sqlite3_column_type(st, col) == SQLITE_NULL ? -1 : sqlite3_column_double(st, col);
}

static int64_t int_or_unknown(sqlite3_stmt *st, int col)
{
	return sqlite3_column_type(st, col) == SQLITE_NULL ? -1 : sqlite3_column_int64(st, col);
}

int report_step_end(sqlite3_stmt *st)
{
	/* The step that ended the loop failed (interrupted, overflow, too big): say so. */
	return sqlite3_finalize(st) == SQLITE_OK ? 0 : -EIO;
}

static int load_series(struct loader *l, int64_t cg, struct report_cgroup *c)
{
	sqlite3_stmt *st =
	    prepare_window(l, "SELECT t_ms, coverage_pct, d_pmd_split, interval_ms"
			      " FROM samples WHERE t_ms > ?1 AND t_ms <= ?2 AND cg = ?3"
			      " ORDER BY t_ms");

	if (!st)
		return -EIO;
	sqlite3_bind_int64(st, 3, cg);
	while (sqlite3_step(st) == SQLITE_ROW) {
		struct report_point *p = push(&c->points, &c->npoints, sizeof(*p));
		int64_t interval = sqlite3_column_int64(st, 3);

		if (!p)
			return report_no_memory(l, st);
		p->t_ms = sqlite3_column_int64(st, 0);
		p->coverage_pct = real_or_unknown(st, 1);
		p->split_rate =
		    interval > 0 ? (double)sqlite3_column_int64(st, 2) * 1000.0 / (double)interval
				 : 0;
	}
	return report_step_end(st);
}

static int load_changes(struct loader *l, int64_t cg, struct report_cgroup *c)
{
	sqlite3_stmt *st = prepare_window(l, "SELECT t_ms, old_class, new_class FROM class_changes"
					     " WHERE t_ms > ?1 AND t_ms <= ?2 AND cg = ?3"
					     " ORDER BY t_ms");

	if (!st)
		return -EIO;
	sqlite3_bind_int64(st, 3, cg);
	while (sqlite3_step(st) == SQLITE_ROW) {
		struct report_class_change *x = push(&c->changes, &c->nchanges, sizeof(*x));

		if (!x)
			return report_no_memory(l, st);
		x->t_ms = sqlite3_column_int64(st, 0);
		copy_text(x->from, sizeof(x->from), st, 1);
		copy_text(x->to, sizeof(x->to), st, 2);
	}
	return report_step_end(st);
}

/* The shatter counts of a record (columns 8..11): NULL where not counted. */
static void shatter_counts(sqlite3_stmt *st, struct report_action *a)
{
	a->shatter_counted = sqlite3_column_type(st, 8) != SQLITE_NULL;
	a->shattered = (uint64_t)sqlite3_column_int64(st, 8);
	a->shatter_failed = (uint64_t)sqlite3_column_int64(st, 9);
	a->shatter_discarded = (uint64_t)sqlite3_column_int64(st, 10);
	a->shatter_split = (uint64_t)sqlite3_column_int64(st, 11);
	a->split_counted = sqlite3_column_type(st, 12) != SQLITE_NULL;
	a->split_bytes = (uint64_t)sqlite3_column_int64(st, 12);
	a->split_thps = (uint64_t)sqlite3_column_int64(st, 13);
	a->split_partial = (uint64_t)sqlite3_column_int64(st, 14);
	a->pages_migrated = (uint64_t)sqlite3_column_int64(st, 15);
}

static int load_actions(struct loader *l, int64_t cg, struct report_cgroup *c)
{
	char sql[640];
	sqlite3_stmt *st;

	/* Version 1 has no shatter counts, before 8 no split tally: NULL, as
	 * a record that counted none. */
	snprintf(sql, sizeof(sql),
		 "SELECT t_ms, kind, result, policy, detail, pid, bytes, err, %s, %s FROM actions"
		 " WHERE t_ms > ?1 AND t_ms <= ?2 AND (cg = ?3 OR (cg IS NULL AND"
		 " cgroup = ?4 AND cgroup_id = ?5)) ORDER BY t_ms",
		 l->version >= 2 ? "shattered, shatter_failed, shatter_discarded, shatter_split"
				 : "NULL, NULL, NULL, NULL",
		 l->version >= 8 ? "split_bytes, split_thps, split_partial, pages_migrated"
				 : "NULL, NULL, NULL, NULL");
	st = prepare_window(l, sql);

	if (!st)
		return -EIO;
	sqlite3_bind_int64(st, 3, cg);
	sqlite3_bind_text(st, 4, c->path, -1, SQLITE_STATIC);
	sqlite3_bind_int64(st, 5, (sqlite3_int64)c->cgroup_id);
	while (sqlite3_step(st) == SQLITE_ROW) {
		struct report_action *a = push(&c->actions, &c->nactions, sizeof(*a));

		if (!a)
			return report_no_memory(l, st);
		a->t_ms = sqlite3_column_int64(st, 0);
		copy_text(a->kind, sizeof(a->kind), st, 1);
		copy_text(a->result, sizeof(a->result), st, 2);
		copy_text(a->policy, sizeof(a->policy), st, 3);
		copy_text(a->detail, sizeof(a->detail), st, 4);
		a->pid = sqlite3_column_int64(st, 5);
		a->bytes = (uint64_t)sqlite3_column_int64(st, 6);
		a->err = sqlite3_column_int(st, 7);
		shatter_counts(st, a);
	}
	return report_step_end(st);
}

static int load_latest(struct loader *l, int64_t cg, struct report_cgroup *c)
{
	sqlite3_stmt *st = prepare_window(l, "SELECT anon_bytes, thp_bytes, coverage_pct,"
					     " thp_alloc, pmd_split FROM samples"
					     " WHERE t_ms > ?1 AND t_ms <= ?2 AND cg = ?3"
					     " ORDER BY t_ms DESC LIMIT 1");

	if (!st)
		return -EIO;
	sqlite3_bind_int64(st, 3, cg);
	if (sqlite3_step(st) == SQLITE_ROW) {
		c->anon_bytes = int_or_unknown(st, 0);
		c->thp_bytes = int_or_unknown(st, 1);
		c->coverage_now = real_or_unknown(st, 2);
		c->thp_alloc_total = (uint64_t)sqlite3_column_int64(st, 3);
		c->pmd_split_total = (uint64_t)sqlite3_column_int64(st, 4);
	}
	return report_step_end(st);
}

/* One aggregated row of the cgroup query into @c (the window's sums: add_sums). */
static void fill_cgroup(sqlite3_stmt *st, struct report_cgroup *c, const struct loader *l)
{
	int col = SUMS_COL;

	c->cgroup_id = (uint64_t)sqlite3_column_int64(st, 2);
	c->first_seen_ms = sqlite3_column_int64(st, 3);
	c->last_seen_ms = sqlite3_column_int64(st, 4);
	copy_text(c->class, sizeof(c->class), st, 5);
	c->samples = (size_t)sqlite3_column_int64(st, 6);
	c->coverage_min = real_or_unknown(st, 7);
	c->coverage_mean = real_or_unknown(st, 8);
	c->coverage_max = real_or_unknown(st, 9);
	c->thp_alloc = (uint64_t)sqlite3_column_int64(st, col++);
	for (size_t i = 0; i < CG_NCOUNTERS; i++)
		if (hist_kept(&cg_counters[i], l->version))
			c->counts[i] = (uint64_t)sqlite3_column_int64(st, col++);
	c->coverage_now = -1;
	c->anon_bytes = c->thp_bytes = -1;
}

/*
 * taod follows cgroups deeper than PATH_MAX, so a long path is real; one
 * over REPORT_MAX_PATH (a crafted database) keeps its head and its tail,
 * where the leaf's name is, cut at character boundaries.
 */
static char *cut_path(const char *path, size_t bytes)
{
	size_t head = REPORT_MAX_PATH / 4, tail = REPORT_MAX_PATH / 2;
	char *s;

	while (head && ((unsigned char)path[head] & 0xc0) == 0x80)
		head--;
	while (((unsigned char)path[bytes - tail] & 0xc0) == 0x80)
		tail--;
	if (asprintf(&s, "%.*s[...%zu bytes cut...]%s", (int)head, path, bytes - head - tail,
		     path + bytes - tail) < 0)
		return NULL;
	return s;
}

/*
 * Adds the sum of column @col, the window's d_@name of cgroups row @cg, to
 * the report's @total; -EOVERFLOW for a count taod never writes: below
 * zero, or a total over cgroups past 64 bits.
 */
static int add_sum(struct loader *l, sqlite3_stmt *st, int col, const char *name, uint64_t *total,
		   int64_t cg)
{
	int64_t v = sqlite3_column_int64(st, col);

	if (v >= 0 && !__builtin_add_overflow(*total, (uint64_t)v, total))
		return 0;
	snprintf(l->why, sizeof(l->why),
		 "cgroups row %lld: the sum of its samples' d_%s %s (a crafted or "
		 "damaged database?)",
		 (long long)cg, name,
		 v < 0 ? "is below zero" : "overflows 64 bits over all cgroups");
	return -EOVERFLOW;
}

/* The window's sums of the counter columns (hist_columns' order) into the report's totals. */
static int add_sums(struct loader *l, sqlite3_stmt *st, int64_t cg)
{
	struct report *r = l->r;
	int col = SUMS_COL;

	if (add_sum(l, st, col++, "thp_alloc", &r->thp_alloc, cg))
		return -EOVERFLOW;
	for (size_t i = 0; i < CG_NCOUNTERS; i++)
		if (hist_kept(&cg_counters[i], l->version) &&
		    add_sum(l, st, col++, cg_counters[i].json, &r->counts[i], cg))
			return -EOVERFLOW;
	return 0;
}

static int load_one_cgroup(struct loader *l, sqlite3_stmt *st)
{
	const char *path = (const char *)sqlite3_column_text(st, 1);
	int64_t cg = sqlite3_column_int64(st, 0);
	struct report_cgroup *c;
	struct report *r = l->r;
	size_t bytes;

	if (!path || (l->q->glob && fnmatch(l->q->glob, path, 0)))
		return 0;
	if (add_sums(l, st, cg))
		return -EOVERFLOW;
	c = push(&r->cgroups, &r->ncgroups, sizeof(*c));
	bytes = (size_t)sqlite3_column_bytes(st, 1);
	r->paths_cut += bytes > REPORT_MAX_PATH;
	if (!c || !(c->path = bytes > REPORT_MAX_PATH ? cut_path(path, bytes) : strdup(path)))
		return report_no_memory(l, NULL);
	c->guarantee_pct = -1; /* the caller knows the policies, if anyone does */
	fill_cgroup(st, c, l);
	if (load_latest(l, cg, c) || load_changes(l, cg, c) || load_actions(l, cg, c) ||
	    report_load_sizes(l, cg, c))
		return -EIO;
	return l->q->with_series ? load_series(l, cg, c) : 0;
}

static int load_cgroups(struct loader *l)
{
	/* The columns fill_cgroup reads, the counters' sums from SUMS_COL on. */
	char *sql = hist_columns_sql(
	    cg_counters, CG_NCOUNTERS, l->version,
	    "SELECT c.cg, c.path, c.cgroup_id, c.first_seen_ms, c.last_seen_ms, c.class,"
	    " count(*), min(s.coverage_pct), avg(s.coverage_pct), max(s.coverage_pct), ",
	    "sum(s.d_%s)",
	    " FROM cgroups c JOIN samples s ON s.cg = c.cg"
	    " WHERE s.t_ms > ?1 AND s.t_ms <= ?2 GROUP BY c.cg ORDER BY c.path, c.cg");
	sqlite3_stmt *st;
	int r = 0;

	if (!sql)
		return report_no_memory(l, NULL);
	st = prepare_window(l, sql);
	free(sql);
	if (!st)
		return -EIO;
	while (!r && sqlite3_step(st) == SQLITE_ROW)
		r = load_one_cgroup(l, st);
	return r ? (sqlite3_finalize(st), r) : report_step_end(st);
}

/* The last batch written whole in the window: a reader may find the next
 * one half written (schema 9 on; older batches were written whole). */
static int load_last_batch(struct loader *l)
{
	sqlite3_stmt *st;

	if (l->version < 9)
		return 0;
	st = prepare_window(l, "SELECT max(t_ms) FROM batches WHERE t_ms > ?1 AND t_ms <= ?2");
	if (!st)
		return -EIO;
	if (sqlite3_step(st) == SQLITE_ROW)
		l->r->last_batch_ms = sqlite3_column_int64(st, 0);
	return report_step_end(st);
}

static int load_span(struct loader *l)
{
	sqlite3_stmt *st = prepare_window(l, "SELECT min(t_ms), max(t_ms), count(DISTINCT t_ms)"
					     " FROM samples WHERE t_ms > ?1 AND t_ms <= ?2");

	if (!st)
		return -EIO;
	if (sqlite3_step(st) == SQLITE_ROW) {
		l->r->first_sample_ms = sqlite3_column_int64(st, 0);
		l->r->last_sample_ms = sqlite3_column_int64(st, 1);
		l->r->batches = (size_t)sqlite3_column_int64(st, 2);
	}
	if (report_step_end(st) || load_last_batch(l))
		return -EIO;
	st = prepare_window(l, "SELECT started_ms FROM runs WHERE started_ms > ?1"
			       " AND started_ms <= ?2 ORDER BY started_ms");
	while (st && sqlite3_step(st) == SQLITE_ROW) {
		int64_t *t = push(&l->r->run_starts, &l->r->nruns, sizeof(*t));

		if (!t)
			return report_no_memory(l, st);
		*t = sqlite3_column_int64(st, 0);
	}
	return sqlite3_finalize(st) == SQLITE_OK ? 0 : -EIO;
}

static int load_zones(struct loader *l)
{
	char sql[320];
	sqlite3_stmt *st;

	snprintf(sql, sizeof(sql),
		 "SELECT node, zone, present_pages, managed_pages, free_pages, free_blocks, %s"
		 " FROM zone_samples WHERE t_ms = (SELECT max(t_ms) FROM zone_samples"
		 " WHERE t_ms > ?1 AND t_ms <= ?2) ORDER BY node, zone",
		 l->version >= 2 ? "zone_order" : "NULL");
	st = prepare_window(l, sql);

	while (st && sqlite3_step(st) == SQLITE_ROW) {
		struct report_zone *z = push(&l->r->zones, &l->r->nzones, sizeof(*z));

		if (!z)
			return report_no_memory(l, st);
		z->node = sqlite3_column_int(st, 0);
		copy_text(z->name, sizeof(z->name), st, 1);
		z->present_pages = (uint64_t)sqlite3_column_int64(st, 2);
		z->managed_pages = (uint64_t)sqlite3_column_int64(st, 3);
		z->free_pages = (uint64_t)sqlite3_column_int64(st, 4);
		copy_text(z->free_blocks, sizeof(z->free_blocks), st, 5);
		z->order = (int)int_or_unknown(st, 6);
	}
	return st && sqlite3_finalize(st) == SQLITE_OK ? 0 : -EIO;
}

/* Adds one zone's "n0 n1 n2 ..." free block counts to @p. */
static void add_blocks(struct report *r, struct report_frag *p, const char *text)
{
	int order = 0, n;
	unsigned long long v;

	while (text && order < REPORT_MAX_ORDERS && sscanf(text, "%llu%n", &v, &n) == 1) {
		p->blocks[order++] += v;
		text += n;
	}
	if (order > r->frag_orders)
		r->frag_orders = order;
}

/* Free blocks by order summed over zones, per batch. */
static int load_fragmentation(struct loader *l)
{
	sqlite3_stmt *st = prepare_window(l, "SELECT t_ms, free_blocks FROM zone_samples"
					     " WHERE t_ms > ?1 AND t_ms <= ?2 ORDER BY t_ms");
	struct report_frag *p = NULL;

	while (st && sqlite3_step(st) == SQLITE_ROW) {
		int64_t t = sqlite3_column_int64(st, 0);

		if (!p || p->t_ms != t) {
			p = push(&l->r->frag, &l->r->nfrag, sizeof(*p));
			if (!p)
				return report_no_memory(l, st);
			p->t_ms = t;
		}
		add_blocks(l->r, p, (const char *)sqlite3_column_text(st, 1));
	}
	return st && sqlite3_finalize(st) == SQLITE_OK ? 0 : -EIO;
}

/*
 * Latest value of every global mTHP stat and its change over the window.
 * Rows exist only where a value changed, so the value at a time is the
 * newest row at or before it.
 */
static int load_mthp(struct loader *l)
{
	sqlite3_stmt *st = prepare_window(
	    l, "SELECT k.size_kb, k.stat, v.value, v.value - coalesce("
	       " (SELECT b.value FROM mthp_samples b WHERE b.size_kb = k.size_kb"
	       "  AND b.stat = k.stat AND b.t_ms <= ?1 ORDER BY b.t_ms DESC LIMIT 1),"
	       " (SELECT f.value FROM mthp_samples f WHERE f.size_kb = k.size_kb"
	       "  AND f.stat = k.stat AND f.t_ms > ?1 ORDER BY f.t_ms LIMIT 1))"
	       " FROM (SELECT size_kb, stat, max(t_ms) AS t FROM mthp_samples"
	       "  WHERE t_ms <= ?2 GROUP BY size_kb, stat) k"
	       " JOIN mthp_samples v ON v.size_kb = k.size_kb AND v.stat = k.stat"
	       "  AND v.t_ms = k.t ORDER BY k.size_kb, k.stat");

	while (st && sqlite3_step(st) == SQLITE_ROW) {
		struct report_mthp *m = push(&l->r->mthp, &l->r->nmthp, sizeof(*m));

		if (!m)
			return report_no_memory(l, st);
		m->size_kb = (unsigned)sqlite3_column_int(st, 0);
		copy_text(m->stat, sizeof(m->stat), st, 1);
		m->value = (uint64_t)sqlite3_column_int64(st, 2);
		m->delta = sqlite3_column_int64(st, 3);
	}
	return st && sqlite3_finalize(st) == SQLITE_OK ? 0 : -EIO;
}

static int open_read_only(const char *path, struct loader *l, char *err, size_t err_len)
{
	sqlite3 **db = &l->db;
	int r;

	if (sqlite3_open_v2(path, db, SQLITE_OPEN_READONLY, NULL) != SQLITE_OK) {
		snprintf(err, err_len, "%s: %s", path, *db ? sqlite3_errmsg(*db) : "out of memory");
		return -EIO;
	}
	sqlite3_busy_timeout(*db, 5000);
	report_guard_apply(*db, &l->guard);
	r = history_schema_check(*db, err, err_len);
	if (!r)
		r = report_guard_schema(*db, history_schema_version(*db), err, err_len);
	if (r) {
		char why[256];

		snprintf(why, sizeof(why), "%s", err);
		snprintf(err, err_len, "%s: %s", path, why);
	}
	return r;
}

int report_load(const struct report_query *q, struct report *r, char *err, size_t err_len)
{
	assert(q);
	assert(r);

	struct loader l = {.q = q, .r = r};
	int rc;

	memset(r, 0, sizeof(*r));
	snprintf(r->db, sizeof(r->db), "%s", q->db_path);
	r->since_ms = q->since_ms;
	r->until_ms = q->until_ms;
	rc = open_read_only(q->db_path, &l, err, err_len);
	l.version = rc ? 0 : history_schema_version(l.db);
	/* One read transaction: every query sees the same batches. */
	if (!rc && sqlite3_exec(l.db, "BEGIN", NULL, NULL, NULL) != SQLITE_OK)
		rc = -EIO;
	if (!rc) {
		rc = load_span(&l);
		rc = rc ? rc : load_zones(&l);
		rc = rc ? rc : load_mthp(&l);
		rc = rc ? rc : report_load_tao(&l);
		rc = rc ? rc : report_load_pressure(&l);
		rc = rc ? rc : report_load_costs(&l);
		rc = rc ? rc : load_cgroups(&l);
		rc = rc || !q->with_series ? rc : load_fragmentation(&l);
		if (rc && !l.why[0])
			report_guard_error(l.db, &l.guard, l.why, sizeof(l.why));
		if (rc)
			snprintf(err, err_len, "%s: reading: %s", q->db_path, l.why);
	}
	sqlite3_close(l.db);
	return rc;
}

void report_free(struct report *r)
{
	for (size_t i = 0; i < r->ncgroups; i++) {
		free(r->cgroups[i].path);
		free(r->cgroups[i].points);
		free(r->cgroups[i].changes);
		free(r->cgroups[i].actions);
		free(r->cgroups[i].sizes);
	}
	free(r->cgroups);
	free(r->zones);
	free(r->frag);
	free(r->mthp);
	free(r->run_starts);
	free(r->tao.counters);
	free(r->tao.series);
	free(r->costs.by_policy);
	free(r->costs.by_tenant);
	memset(r, 0, sizeof(*r));
}

double report_split_ratio(const struct report_cgroup *c)
{
	return c->thp_alloc ? (double)c->counts[CG_IDX_pmd_split] / (double)c->thp_alloc : 0.0;
}

bool report_cgroup_present(const struct report *r, const struct report_cgroup *c)
{
	return c->last_seen_ms >= (r->last_batch_ms ? r->last_batch_ms : r->last_sample_ms);
}

bool report_guarantee_missed(const struct report_cgroup *c)
{
	return c->guarantee_pct > 0 && c->coverage_mean >= 0 && c->coverage_mean < c->guarantee_pct;
}
