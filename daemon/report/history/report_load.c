// SPDX-License-Identifier: GPL-2.0
/*
 * The loader's helpers that each table's reader shares: a statement over
 * the report's time window, text columns, growing arrays, and the
 * out-of-memory answer.
 */
#include <errno.h>
#include <sqlite3.h>
#include <stdlib.h>
#include <string.h>

#include "report_internal.h"

sqlite3_stmt *prepare_window(struct loader *l, const char *sql)
{
	sqlite3_stmt *st = NULL;

	if (sqlite3_prepare_v2(l->db, sql, -1, &st, NULL) != SQLITE_OK)
		return NULL;
	sqlite3_bind_int64(st, 1, l->q->since_ms);
	sqlite3_bind_int64(st, 2, l->q->until_ms);
	return st;
}

void copy_text(char *dst, size_t len, sqlite3_stmt *st, int col)
{
	const unsigned char *s = sqlite3_column_text(st, col);

	snprintf(dst, len, "%s", s ? (const char *)s : "");
}

void *push(void *vp, size_t *n, size_t size)
{
	void **v = vp;
	char *bigger = realloc(*v, (*n + 1) * size);

	if (!bigger)
		return NULL;
	*v = bigger;
	memset(bigger + *n * size, 0, size);
	return bigger + (*n)++ * size;
}

int report_no_memory(struct loader *l, sqlite3_stmt *st)
{
	sqlite3_finalize(st);
	snprintf(l->why, sizeof(l->why), "out of memory");
	return -ENOMEM;
}
