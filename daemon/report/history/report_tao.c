// SPDX-License-Identifier: GPL-2.0
/*
 * The TAO part of a report (tao-kernel-abi.md 2a): the policy zones' and
 * shattering's vmstat counters over the window, the shatter counts as a
 * series for the chart, and the HVO saving where the kernel counts it.
 * Rows exist only where a value changed (history_machine.c), so a value
 * at a time is the newest row at or before it. A stock kernel, or a
 * database older than schema version 2, has none: the report says nothing.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "report_internal.h"
#include "account/machine_stats.h"

/* The shatter outcomes, in struct report_shatter_point's order. */
static const enum tao_vmstat shatter_stats[] = {TVM_SHATTER, TVM_SHATTER_FAILED,
						TVM_SHATTER_DISCARDED};
#define NSHATTER (sizeof(shatter_stats) / sizeof(*shatter_stats))

/* Position in enum tao_vmstat: the order reports list the counters in. */
static int rank(const char *stat)
{
	int i = 0;

	while (i < TVM_MAX && strcmp(tao_vmstat_name(i), stat))
		i++;
	return i;
}

static int by_rank(const void *a, const void *b)
{
	const struct report_counter *x = a, *y = b;
	int rx = rank(x->stat), ry = rank(y->stat);

	return rx != ry ? rx - ry : strcmp(x->stat, y->stat);
}

static int load_counters(struct loader *l)
{
	struct report_tao *t = &l->r->tao;
	sqlite3_stmt *st = prepare_window(
	    l, "SELECT k.stat, v.value, v.value - coalesce("
	       " (SELECT b.value FROM tao_samples b WHERE b.stat = k.stat AND b.t_ms <= ?1"
	       "  ORDER BY b.t_ms DESC LIMIT 1),"
	       " (SELECT f.value FROM tao_samples f WHERE f.stat = k.stat AND f.t_ms > ?1"
	       "  ORDER BY f.t_ms LIMIT 1))"
	       " FROM (SELECT stat, max(t_ms) AS t FROM tao_samples WHERE t_ms <= ?2"
	       "  GROUP BY stat) k JOIN tao_samples v ON v.stat = k.stat AND v.t_ms = k.t");

	while (st && sqlite3_step(st) == SQLITE_ROW) {
		struct report_counter *c = push(&t->counters, &t->ncounters, sizeof(*c));

		if (!c)
			return report_no_memory(l, st);
		copy_text(c->stat, sizeof(c->stat), st, 0);
		c->value = (uint64_t)sqlite3_column_int64(st, 1);
		c->delta = sqlite3_column_int64(st, 2);
	}
	if (t->ncounters)
		qsort(t->counters, t->ncounters, sizeof(*t->counters), by_rank);
	return st && sqlite3_finalize(st) == SQLITE_OK ? 0 : -EIO;
}

static uint64_t *point_value(struct report_shatter_point *p, size_t i)
{
	uint64_t *v[NSHATTER] = {&p->shattered, &p->failed, &p->discarded};

	return v[i];
}

/* A new point at @t carrying the last one's values (zeros for the first). */
static struct report_shatter_point *point_at(struct report_tao *t, int64_t at)
{
	struct report_shatter_point *p;

	if (t->nseries && t->series[t->nseries - 1].t_ms == at)
		return &t->series[t->nseries - 1];
	p = push(&t->series, &t->nseries, sizeof(*p));
	if (p && t->nseries > 1)
		*p = t->series[t->nseries - 2];
	if (p)
		p->t_ms = at;
	return p;
}

/* Values at the window's start: a kernel restart shows as a value below its base. */
static void shatter_bases(const struct report *r, uint64_t base[NSHATTER])
{
	for (size_t i = 0; i < NSHATTER; i++) {
		const struct report_counter *c =
		    report_tao_counter(r, tao_vmstat_name(shatter_stats[i]));

		base[i] = c ? c->value - (uint64_t)c->delta : 0;
	}
}

static int load_series(struct loader *l)
{
	struct report_tao *t = &l->r->tao;
	sqlite3_stmt *st = prepare_window(l, "SELECT t_ms, stat, value FROM tao_samples"
					     " WHERE t_ms > ?1 AND t_ms <= ?2 AND stat IN"
					     " (?3, ?4, ?5) ORDER BY t_ms");
	uint64_t base[NSHATTER];

	if (!st)
		return -EIO;
	shatter_bases(l->r, base);
	for (size_t i = 0; i < NSHATTER; i++)
		sqlite3_bind_text(st, 3 + (int)i, tao_vmstat_name(shatter_stats[i]), -1,
				  SQLITE_STATIC);
	point_at(t, l->r->first_sample_ms); /* every line starts at 0 */
	while (sqlite3_step(st) == SQLITE_ROW) {
		struct report_shatter_point *p = point_at(t, sqlite3_column_int64(st, 0));
		const char *stat = (const char *)sqlite3_column_text(st, 1);
		uint64_t v = (uint64_t)sqlite3_column_int64(st, 2);

		for (size_t i = 0; p && stat && i < NSHATTER; i++)
			if (!strcmp(stat, tao_vmstat_name(shatter_stats[i])))
				*point_value(p, i) = v >= base[i] ? v - base[i] : v;
	}
	/* The lines reach the window's last batch, not the last change. */
	point_at(t, l->r->last_sample_ms);
	return sqlite3_finalize(st) == SQLITE_OK ? 0 : -EIO;
}

int report_load_tao(struct loader *l)
{
	int r;

	if (l->version < 2)
		return 0; /* no TAO counters recorded before schema version 2 */
	r = load_counters(l);
	if (r || !l->r->tao.ncounters || !l->q->with_series || !l->r->first_sample_ms)
		return r;
	return load_series(l);
}

const struct report_counter *report_tao_counter(const struct report *r, const char *stat)
{
	for (size_t i = 0; i < r->tao.ncounters; i++)
		if (!strcmp(r->tao.counters[i].stat, stat))
			return &r->tao.counters[i];
	return NULL;
}

bool report_hvo(const struct report *r, uint64_t *pages, uint64_t *saved_bytes)
{
	const struct report_counter *c = report_tao_counter(r, tao_vmstat_name(TVM_HVO));

	*pages = c ? c->value : 0;
	*saved_bytes = *pages * HVO_SAVED_PER_THP;
	return c != NULL;
}

struct report_shatter_sum report_cgroup_shatter(const struct report_cgroup *c)
{
	struct report_shatter_sum s = {0};

	for (size_t i = 0; i < c->nactions; i++) {
		const struct report_action *a = &c->actions[i];

		if (!a->shatter_counted)
			continue;
		s.actions++;
		s.shattered += a->shattered;
		s.failed += a->shatter_failed;
		s.discarded += a->shatter_discarded;
		s.split += a->shatter_split;
	}
	return s;
}
