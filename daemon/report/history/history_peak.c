// SPDX-License-Identifier: GPL-2.0
/*
 * The THP bytes tenants held at their peak (history_peak.h). decide keeps
 * the peak in memory once a second; without this a restart forgot it and
 * taoctl zones could size the next boot's zones below what the tenants
 * held an hour ago.
 */
#include <errno.h>
#include <sqlite3.h>

#include "history_peak.h"

static const char peak_sql[] =
    "SELECT s.t_ms, COALESCE(MAX(CASE WHEN c.path = '/' THEN s.thp_bytes END),"
    " SUM(CASE WHEN c.path != '/' AND instr(substr(c.path, 2), '/') = 0"
    " THEN s.thp_bytes END)) AS held"
    " FROM samples s JOIN cgroups c ON c.cg = s.cg WHERE s.t_ms >= ?1"
    " GROUP BY s.t_ms ORDER BY held DESC, s.t_ms DESC LIMIT 1";

int history_thp_peak(struct history *h, uint64_t since_wall_ms, uint64_t *bytes,
		     uint64_t *at_wall_ms)
{
	sqlite3_stmt *st = NULL;
	int r;

	*bytes = *at_wall_ms = 0;
	if (sqlite3_prepare_v2(history_db(h), peak_sql, -1, &st, NULL) != SQLITE_OK)
		return -EIO;
	sqlite3_bind_int64(st, 1, (sqlite3_int64)since_wall_ms);
	r = sqlite3_step(st);
	if (r == SQLITE_ROW && sqlite3_column_type(st, 1) != SQLITE_NULL) {
		*at_wall_ms = (uint64_t)sqlite3_column_int64(st, 0);
		*bytes = (uint64_t)sqlite3_column_int64(st, 1);
	}
	sqlite3_finalize(st);
	return r == SQLITE_ROW || r == SQLITE_DONE ? 0 : -EIO;
}
