/* SPDX-License-Identifier: GPL-2.0 */
/* What the report reader's files share (report_query.c, report_tao.c). */
#ifndef TAOD_REPORT_INTERNAL_H
#define TAOD_REPORT_INTERNAL_H

#include <sqlite3.h>
#include <stddef.h>

#include "taod/report.h"

struct loader {
	sqlite3 *db;
	int version; /* the database's schema version: older ones lack later columns */
	const struct report_query *q;
	struct report *r;
};

/* @sql with ?1 = since, ?2 = until bound; NULL on a prepare error. */
sqlite3_stmt *prepare_window(struct loader *l, const char *sql);
/* Column @col as text into @dst ("" for NULL). */
void copy_text(char *dst, size_t len, sqlite3_stmt *st, int col);
/* Grows *v by one element of @size; returns it zeroed, or NULL. */
void *push(void *vp, size_t *n, size_t size);
/* The TAO counters and shatter series of the window (report_tao.c); none before version 2. */
int report_load_tao(struct loader *l);
/* The cgroup's large folios by size in the window (report_sizes.c); none before version 3. */
int report_load_sizes(struct loader *l, int64_t cg, struct report_cgroup *c);

#endif
