/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The samples table's counter columns, made from the per-cgroup counter
 * list (TAOD_CG_COUNTERS): thp_alloc (fault + collapse, the one derived
 * column) and every counter whose row names a history schema version, each
 * as a cumulative column NAME and a per-batch delta d_NAME. The functions
 * take the list's table so that a test can hand them a list of its own.
 */
#ifndef TAOD_HISTORY_COLUMNS_H
#define TAOD_HISTORY_COLUMNS_H

#include <stdbool.h>
#include <stdio.h>

#include "observe/cg_counters.h"
#include "observe/size_events.h"

/* Whether counter @d has history columns in a database of schema @version. */
static inline bool hist_kept(const struct cg_counter *d, int version)
{
	return d->history > 0 && d->history <= version;
}

/*
 * Writes the names of the columns schema versions @from to @to added to
 * @f, each through printf format @fmt (the name is its argument, %1$s where
 * used twice), @sep between. A reader passes 1 and the database's version:
 * an older database lacks a later counter's columns.
 */
void hist_columns(FILE *f, const struct cg_counter *t, size_t n, int from, int to, const char *fmt,
		  const char *sep);

/*
 * The SQL of schema step @version: @before, the columns this version adds
 * and @after (NULL: nothing). Version 1 creates them inside its samples
 * table, between @before and @after; a later one adds them by ALTER TABLE
 * after @before, 0 in the rows already there (not counted then).
 * malloc'd; NULL on ENOMEM.
 */
char *hist_schema_step(const struct cg_counter *t, size_t n, int version, const char *before,
		       const char *after);

/* @head, the columns of schema versions 1 to @version through @fmt, ", " between, @tail. malloc'd.
 */
char *hist_columns_sql(const struct cg_counter *t, size_t n, int version, const char *head,
		       const char *fmt, const char *tail);

/*
 * The writer's statements, for a database of schema @version (the newest:
 * the writer migrates first): "INSERT OR REPLACE INTO samples(...)" of cg,
 * t_ms, run, interval_ms, anon_bytes, thp_bytes, coverage_pct, the
 * counters, their deltas and class; and the cumulative counters and t_ms
 * of a cg's (?1) newest sample. malloc'd; NULL on ENOMEM.
 */
char *hist_insert_sample_sql(const struct cg_counter *t, size_t n, int version);
char *hist_last_sample_sql(const struct cg_counter *t, size_t n, int version);

/*
 * The size_samples table's per-size event columns, d_JSON for each row of
 * the per-size event list (TAOD_SIZE_EVENTS) that names a schema version:
 * made inside the table by the version that creates it
 * (HIST_SIZE_TABLE_VERSION), added by ALTER TABLE by a later one. As
 * above, the functions take the list's table so that a test can hand them
 * a list of its own.
 */
#define HIST_SIZE_TABLE_VERSION 3

/* Whether event @d has its column in a database of schema @version. */
static inline bool hist_size_kept(const struct size_event *d, int version)
{
	return d->history > 0 && d->history <= version;
}

/*
 * The SQL of schema step @version for the event columns: @before, the
 * columns (inside the table, ", " between, for HIST_SIZE_TABLE_VERSION;
 * else one ALTER TABLE each, 0 in the rows already there: not counted
 * then) and @after (NULL: nothing). malloc'd; NULL on ENOMEM.
 */
char *hist_size_schema_step(const struct size_event *t, size_t n, int version, const char *before,
			    const char *after);

/*
 * The writer's statement: "INSERT OR REPLACE INTO size_samples(cg, t_ms,
 * size_kb, mapped_bytes, coverage_pct, d_...)" with a `?` each, the
 * events in the list's order from parameter 6. malloc'd; NULL on ENOMEM.
 */
char *hist_size_insert_sql(const struct size_event *t, size_t n, int version);

/*
 * The report's sums over a window (?1 < t_ms <= ?2) of cg ?3, a row per
 * size: size_kb, then sum(d_...) of each event kept in schema @version,
 * in the list's order. malloc'd; NULL on ENOMEM.
 */
char *hist_size_sums_sql(const struct size_event *t, size_t n, int version);

#endif
