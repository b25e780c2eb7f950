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

#endif
