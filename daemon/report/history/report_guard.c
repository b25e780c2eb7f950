// SPDX-License-Identifier: GPL-2.0
/*
 * `taoctl report --db FILE` reads whatever database it is handed, so the
 * connection is held to what taod's own history needs: tables only (a view
 * can recurse forever), no triggers, a bounded text length and heap, and a
 * time limit on the whole read. Each breach is a clear error, never a hang,
 * a silent short answer or gigabytes of memory.
 */
#include <errno.h>
#include <sqlite3.h>
#include <stdio.h>
#include <string.h>

#include "report_internal.h"
#include "common/clock.h"

/* The tables each schema version has (history_schema.c). */
static const struct {
	const char *name;
	int since; /* the schema version that added it */
} tables[] = {
    {"runs", 1},	 {"cgroups", 1},	  {"samples", 1},      {"class_changes", 1},
    {"actions", 1},	 {"zone_samples", 1},	  {"mthp_samples", 1}, {"tao_samples", 2},
    {"size_samples", 3}, {"pressure_samples", 6}, {"action_costs", 7}, {"action_benefits", 7},
    {"batches", 9},
};

#define NTABLES (sizeof(tables) / sizeof(tables[0]))

static int on_progress(void *user)
{
	struct report_guard *g = user;

	g->timed_out = monotonic_ms() > g->deadline_ms;
	return g->timed_out; /* non-zero interrupts the statement */
}

void report_guard_apply(sqlite3 *db, struct report_guard *g)
{
	static const int off[] = {SQLITE_DBCONFIG_ENABLE_VIEW, SQLITE_DBCONFIG_ENABLE_TRIGGER,
				  SQLITE_DBCONFIG_TRUSTED_SCHEMA};

	for (size_t i = 0; i < sizeof(off) / sizeof(off[0]); i++)
		sqlite3_db_config(db, off[i], 0, NULL);
	sqlite3_db_config(db, SQLITE_DBCONFIG_DEFENSIVE, 1, NULL);
	sqlite3_limit(db, SQLITE_LIMIT_LENGTH, REPORT_MAX_TEXT);
	sqlite3_hard_heap_limit64(REPORT_MAX_HEAP);
	g->deadline_ms = monotonic_ms() + REPORT_MAX_MS;
	g->timed_out = false;
	sqlite3_progress_handler(db, 10000, on_progress, g);
}

static int table_index(const char *name, int version)
{
	for (size_t i = 0; i < NTABLES; i++)
		if (tables[i].since <= version && !strcmp(tables[i].name, name))
			return (int)i;
	return -1;
}

/* NULL when the schema object is one taod's history may hold, else why not. */
static const char *odd_object(const char *type, const char *name, const char *tbl, int version,
			      char *why, size_t len)
{
	bool ours = table_index(name, version) >= 0;

	if (!strcmp(type, "table") && (ours || !strncmp(name, "sqlite_", 7)))
		return NULL;
	if (!strcmp(type, "index") && table_index(tbl, version) >= 0)
		return NULL;
	if (ours)
		snprintf(why, len, "%s is a %s, not a table", name, type);
	else
		snprintf(why, len, "%s %s is not part of taod's history", type, name);
	return why;
}

/* Every object in the schema: ours, and each of our tables present. */
int report_guard_schema(sqlite3 *db, int version, char *err, size_t len)
{
	sqlite3_stmt *st = NULL;
	bool seen[NTABLES] = {0};
	int rc = 0, r;

	if (sqlite3_prepare_v2(db, "SELECT type, name, tbl_name FROM sqlite_schema", -1, &st,
			       NULL) != SQLITE_OK) {
		snprintf(err, len, "reading its schema: %s", sqlite3_errmsg(db));
		return -EIO;
	}
	while (!rc && (r = sqlite3_step(st)) == SQLITE_ROW) {
		const char *type = (const char *)sqlite3_column_text(st, 0);
		const char *name = (const char *)sqlite3_column_text(st, 1);
		const char *tbl = (const char *)sqlite3_column_text(st, 2);
		int i = name ? table_index(name, version) : -1;

		if (!type || !name || !tbl)
			continue;
		if (odd_object(type, name, tbl, version, err, len))
			rc = -EPROTO;
		else if (i >= 0 && !strcmp(type, "table"))
			seen[i] = true;
	}
	if (sqlite3_finalize(st) != SQLITE_OK && !rc) {
		snprintf(err, len, "reading its schema: %s", sqlite3_errmsg(db));
		return -EIO;
	}
	for (size_t i = 0; !rc && i < NTABLES; i++)
		if (tables[i].since <= version && !seen[i]) {
			snprintf(err, len, "no table %s: not a taod history of version %d",
				 tables[i].name, version);
			rc = -EPROTO;
		}
	return rc;
}

void report_guard_error(sqlite3 *db, const struct report_guard *g, char *err, size_t len)
{
	int code = sqlite3_errcode(db);

	if (g->timed_out)
		snprintf(err, len, "took longer than %d s: a crafted or damaged database?",
			 REPORT_MAX_MS / 1000);
	else if (code == SQLITE_TOOBIG)
		snprintf(err, len, "a text or blob longer than the %d bytes taoctl reads",
			 REPORT_MAX_TEXT);
	else if (code == SQLITE_NOMEM)
		snprintf(err, len, "reading needs more than the %lld MiB taoctl allows itself",
			 REPORT_MAX_HEAP >> 20);
	else
		snprintf(err, len, "%s", sqlite3_errmsg(db));
}
