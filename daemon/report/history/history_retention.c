// SPDX-License-Identifier: GPL-2.0
/*
 * Bounds the history: rows older than the retention age go, then the
 * oldest tenth of what is left, repeatedly, until the database fits its
 * size limit. Freed pages are returned to the file system with an
 * incremental vacuum, and the WAL is truncated after a size cut.
 */
#include <errno.h>
#include <sqlite3.h>

#include "history_internal.h"
#include "common/log.h"

#define SIZE_CUT_ROUNDS 20

static const char *const prune_sql[] = {
    "DELETE FROM samples WHERE t_ms < ?1",
    "DELETE FROM zone_samples WHERE t_ms < ?1",
    "DELETE FROM mthp_samples WHERE t_ms < ?1",
    "DELETE FROM tao_samples WHERE t_ms < ?1",
    "DELETE FROM pressure_samples WHERE t_ms < ?1",
    "DELETE FROM size_samples WHERE t_ms < ?1",
    "DELETE FROM class_changes WHERE t_ms < ?1",
    /* An action's cost and benefit go with it (schema 7). */
    "DELETE FROM action_costs WHERE action IN (SELECT id FROM actions WHERE t_ms < ?1)",
    "DELETE FROM action_benefits WHERE action IN (SELECT id FROM actions WHERE t_ms < ?1)",
    "DELETE FROM actions WHERE t_ms < ?1",
    "DELETE FROM runs WHERE started_ms < ?1 AND run <> (SELECT max(run) FROM runs)",
    /* A gone cgroup keeps its row while any of its history is kept. */
    "DELETE FROM cgroups WHERE last_seen_ms < ?1"
    " AND NOT EXISTS (SELECT 1 FROM samples s WHERE s.cg = cgroups.cg)"
    " AND NOT EXISTS (SELECT 1 FROM size_samples z WHERE z.cg = cgroups.cg)"
    " AND NOT EXISTS (SELECT 1 FROM actions a WHERE a.cg = cgroups.cg)",
};

static int64_t pragma_int(sqlite3 *db, const char *sql)
{
	sqlite3_stmt *st;
	int64_t v = -1;

	if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK)
		return -1;
	if (sqlite3_step(st) == SQLITE_ROW)
		v = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	return v;
}

int64_t history_size_bytes(struct history *h)
{
	int64_t pages = pragma_int(h->db, "PRAGMA page_count");
	int64_t free_pages = pragma_int(h->db, "PRAGMA freelist_count");
	int64_t page_size = pragma_int(h->db, "PRAGMA page_size");

	if (pages < 0 || free_pages < 0 || page_size < 0)
		return -1;
	return (pages - free_pages) * page_size;
}

/* Deletes everything older than @cutoff in one transaction. */
static int prune_before(struct history *h, int64_t cutoff)
{
	int r = 0;

	if (sqlite3_exec(h->db, "BEGIN IMMEDIATE", NULL, NULL, NULL) != SQLITE_OK)
		return -EIO;
	for (size_t i = 0; i < sizeof(prune_sql) / sizeof(prune_sql[0]) && !r; i++) {
		sqlite3_stmt *st;

		if (sqlite3_prepare_v2(h->db, prune_sql[i], -1, &st, NULL) != SQLITE_OK) {
			r = -EIO;
			break;
		}
		sqlite3_bind_int64(st, 1, cutoff);
		if (sqlite3_step(st) != SQLITE_DONE)
			r = -EIO;
		sqlite3_finalize(st);
	}
	if (!r && sqlite3_exec(h->db, "COMMIT", NULL, NULL, NULL) != SQLITE_OK)
		r = -EIO;
	if (r) {
		log_warn("history: pruning: %s", sqlite3_errmsg(h->db));
		sqlite3_exec(h->db, "ROLLBACK", NULL, NULL, NULL);
	}
	return r;
}

/* The time a size cut goes up to: a tenth of the kept span past the oldest. */
static int64_t size_cutoff(struct history *h)
{
	int64_t oldest = pragma_int(h->db, "SELECT min(t_ms) FROM samples");
	int64_t newest = pragma_int(h->db, "SELECT max(t_ms) FROM samples");

	if (oldest <= 0 || newest <= oldest)
		return -1; /* one batch left: nothing more to cut */
	return oldest + (newest - oldest) / 10 + 1;
}

int history_retain(struct history *h, uint64_t now_wall_ms, uint64_t max_age_ms, uint64_t max_bytes)
{
	bool cut = false;
	int r = 0;

	if (max_age_ms && now_wall_ms > max_age_ms)
		r = prune_before(h, (int64_t)(now_wall_ms - max_age_ms));
	for (int i = 0; !r && max_bytes && i < SIZE_CUT_ROUNDS; i++) {
		int64_t cutoff;

		sqlite3_exec(h->db, "PRAGMA incremental_vacuum", NULL, NULL, NULL);
		if (history_size_bytes(h) <= (int64_t)max_bytes)
			break;
		cutoff = size_cutoff(h);
		if (cutoff < 0)
			break;
		r = prune_before(h, cutoff);
		cut = true;
	}
	if (pragma_int(h->db, "PRAGMA freelist_count") > 0)
		sqlite3_exec(h->db, "PRAGMA incremental_vacuum", NULL, NULL, NULL);
	if (cut)
		sqlite3_exec(h->db, "PRAGMA wal_checkpoint(TRUNCATE)", NULL, NULL, NULL);
	return r;
}
