/* SPDX-License-Identifier: GPL-2.0 */
/* What the report reader's files share (report_query.c, report_tao.c). */
#ifndef TAOD_REPORT_INTERNAL_H
#define TAOD_REPORT_INTERNAL_H

#include <sqlite3.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "report/report.h"

/* report_guard.c: limits on what a handed-in database may cost. */
#define REPORT_MAX_TEXT (1 << 20)     /* bytes of one text or blob value */
#define REPORT_MAX_HEAP (256LL << 20) /* SQLite's heap, bytes */
#define REPORT_MAX_MS	10000	      /* the whole read */

struct report_guard {
	uint64_t deadline_ms; /* monotonic */
	bool timed_out;
};

/* Views and triggers off, the limits above set, the clock started. */
void report_guard_apply(sqlite3 *db, struct report_guard *g);
/*
 * 0 when every schema object is a table taod makes (for schema @version)
 * or an index on one, and each of those tables is there; else -EPROTO or
 * -EIO with @err saying which object and why.
 */
int report_guard_schema(sqlite3 *db, int version, char *err, size_t len);
/* Why a read failed, in words: the time limit, a value too long, memory... */
void report_guard_error(sqlite3 *db, const struct report_guard *g, char *err, size_t len);

struct loader {
	sqlite3 *db;
	struct report_guard guard;
	char why[256]; /* set by a loader that refused what it read */
	int version;   /* the database's schema version: older ones lack later columns */
	const struct report_query *q;
	struct report *r;
};

/* @sql with ?1 = since, ?2 = until bound; NULL on a prepare error. */
sqlite3_stmt *prepare_window(struct loader *l, const char *sql);
/* Column @col as text into @dst ("" for NULL). */
void copy_text(char *dst, size_t len, sqlite3_stmt *st, int col);
/* Grows *v by one element of @size; returns it zeroed, or NULL. */
void *push(void *vp, size_t *n, size_t size);
/* Finalizes @st (may be NULL), says "out of memory" in l->why: -ENOMEM. */
int report_no_memory(struct loader *l, sqlite3_stmt *st);
/* Finalizes @st: 0, or -EIO when its last step failed rather than ended. */
int report_step_end(sqlite3_stmt *st);
/* The TAO counters and shatter series of the window (report_tao.c); none before version 2. */
int report_load_tao(struct loader *l);
/* The contiguity-pressure states of the window (report_pressure.c); none before version 6. */
int report_load_pressure(struct loader *l);
/* Actions' cost and benefit per policy and per tenant (report_costs.c); none before version 7. */
int report_load_costs(struct loader *l);
/* The cgroup's large folios by size in the window (report_sizes.c); none before version 3. */
int report_load_sizes(struct loader *l, int64_t cg, struct report_cgroup *c);

#endif
