// SPDX-License-Identifier: GPL-2.0
/*
 * The history database's schema and its migrations. PRAGMA user_version
 * holds the schema version; each step moves one version up.
 */
#include <errno.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>

#include "history.h"
#include "history_columns.h"

/*
 * Version 1: the first schema. auto_vacuum must precede the first table.
 * The counter columns of the samples table come from the counter list
 * (taod/thp_observe.h): those whose row names version 1.
 */
static const char schema_v1_head[] =
    "CREATE TABLE runs(run INTEGER PRIMARY KEY, started_ms INTEGER NOT NULL,"
    " pid INTEGER, version TEXT);"
    "CREATE TABLE cgroups(cg INTEGER PRIMARY KEY, path TEXT NOT NULL,"
    " cgroup_id INTEGER NOT NULL, first_seen_ms INTEGER NOT NULL,"
    " last_seen_ms INTEGER NOT NULL, class TEXT);"
    "CREATE INDEX cgroups_identity ON cgroups(path, cgroup_id);"
    "CREATE TABLE samples(cg INTEGER NOT NULL, t_ms INTEGER NOT NULL,"
    " run INTEGER NOT NULL, interval_ms INTEGER NOT NULL,"
    " anon_bytes INTEGER, thp_bytes INTEGER, coverage_pct REAL, ";
/* Between the two: the counter columns of version 1 (history_columns.c). */
static const char schema_v1_tail[] =
    ", class TEXT, PRIMARY KEY(cg, t_ms)) WITHOUT ROWID;"
    "CREATE INDEX samples_time ON samples(t_ms);"
    "CREATE TABLE class_changes(cg INTEGER NOT NULL, t_ms INTEGER NOT NULL,"
    " old_class TEXT, new_class TEXT);"
    "CREATE INDEX class_changes_cg ON class_changes(cg, t_ms);"
    "CREATE TABLE actions(id INTEGER PRIMARY KEY, t_ms INTEGER NOT NULL, cg INTEGER,"
    " cgroup TEXT, cgroup_id INTEGER, kind TEXT, result TEXT, err INTEGER, pid INTEGER,"
    " bytes INTEGER, dry_run INTEGER, policy TEXT, evidence TEXT, detail TEXT);"
    "CREATE INDEX actions_time ON actions(t_ms);"
    "CREATE TABLE zone_samples(t_ms INTEGER NOT NULL, node INTEGER NOT NULL,"
    " zone TEXT NOT NULL, present_pages INTEGER, managed_pages INTEGER,"
    " free_pages INTEGER, free_blocks TEXT, PRIMARY KEY(t_ms, node, zone)) WITHOUT ROWID;"
    "CREATE TABLE mthp_samples(t_ms INTEGER NOT NULL, size_kb INTEGER NOT NULL,"
    " stat TEXT NOT NULL, value INTEGER NOT NULL,"
    " PRIMARY KEY(t_ms, size_kb, stat)) WITHOUT ROWID;"
    /* mTHP rows are written when a value changes (and at keyframes). */
    "CREATE INDEX mthp_key ON mthp_samples(size_kb, stat, t_ms);";

/*
 * Version 2: TAO kernels (tao-kernel-abi.md 2a). Each zone's `order` line;
 * the policy zones' and shattering's vmstat counters, a row when a value
 * changed (and at keyframes), as mthp_samples; and what a shatter did to
 * THPs, on its audit record. Rows of version 1 keep NULL: not counted.
 */
static const char schema_v2[] =
    "ALTER TABLE zone_samples ADD COLUMN zone_order INTEGER;"
    "CREATE TABLE tao_samples(t_ms INTEGER NOT NULL, stat TEXT NOT NULL,"
    " value INTEGER NOT NULL, PRIMARY KEY(t_ms, stat)) WITHOUT ROWID;"
    "CREATE INDEX tao_key ON tao_samples(stat, t_ms);"
    "ALTER TABLE actions ADD COLUMN shattered INTEGER;"
    "ALTER TABLE actions ADD COLUMN shatter_failed INTEGER;"
    "ALTER TABLE actions ADD COLUMN shatter_discarded INTEGER;"
    "ALTER TABLE actions ADD COLUMN shatter_split INTEGER;";

/*
 * Version 3: multi-size THP per cgroup (issue 17). A row per cgroup, sample
 * time and folio size whose counts moved since the cgroup's last row: the
 * per-size events in between (the columns d_JSON of the rows of the
 * per-size event list that name version 3: folios faulted, left partially
 * mapped, split). Databases of versions 1 and 2 have none: no per-size
 * figure was counted then.
 */
static const char schema_v3_head[] =
    "CREATE TABLE size_samples(cg INTEGER NOT NULL, t_ms INTEGER NOT NULL,"
    " size_kb INTEGER NOT NULL, ";
/* Between the two: the event columns of version 3 (history_columns.c). */
static const char schema_v3_tail[] = ", PRIMARY KEY(cg, t_ms, size_kb)) WITHOUT ROWID;"
				     "CREATE INDEX size_samples_time ON size_samples(t_ms);";

/*
 * Version 4: coverage by size (issue 17). On each per-size row, the bytes
 * the cgroup held in folios of that size and their share of its anon
 * memory (percent), as at that row's time; a row is also written when only
 * those moved. Rows of version 3 keep NULL: not counted then.
 */
static const char schema_v4[] = "ALTER TABLE size_samples ADD COLUMN mapped_bytes INTEGER;"
				"ALTER TABLE size_samples ADD COLUMN coverage_pct REAL;";

/*
 * Version 5: collapses per size (issue 17). Its text is empty: the per-size
 * event list's `collapse` row names version 5, and its column d_collapse
 * is the step (0 in the rows already there: not counted then).
 */

/*
 * Version 6: contiguity pressure (issue 25). A row per batch: the
 * machine's state (none, some, full) and the inputs holding it up, as
 * `taoctl status` says them. Databases of older versions have none.
 */
static const char schema_v6[] = "CREATE TABLE pressure_samples(t_ms INTEGER PRIMARY KEY,"
				" state TEXT NOT NULL, why TEXT);";

/*
 * Version 7: cost and benefit of every action (issue 25 part 4). Each
 * action row names its daemon run and audit id, which a later benefit
 * follow-up is matched by; action_costs holds a row per cost figure
 * (taod's CPU and wall time per phase, each vmstat counter of
 * taod/action_cost.h, free PMD blocks before and after: a new counter is a
 * new stat, no migration); action_benefits a row per follow-up. Older
 * actions have none: not measured then.
 */
static const char schema_v7[] =
    "ALTER TABLE actions ADD COLUMN run INTEGER;"
    "ALTER TABLE actions ADD COLUMN audit_id INTEGER;"
    "CREATE INDEX actions_audit ON actions(run, audit_id);"
    "CREATE TABLE action_costs(action INTEGER NOT NULL, stat TEXT NOT NULL,"
    " value INTEGER NOT NULL, PRIMARY KEY(action, stat)) WITHOUT ROWID;"
    "CREATE TABLE action_benefits(action INTEGER NOT NULL, after_ms INTEGER NOT NULL,"
    " final INTEGER NOT NULL, free_pmd_regained INTEGER, wanting INTEGER NOT NULL,"
    " coverage_n INTEGER NOT NULL, coverage_change REAL, fallback_rate REAL,"
    " PRIMARY KEY(action, after_ms)) WITHOUT ROWID;";

/*
 * Version 8: what a shatter's split did, on every kernel (issue 28): bytes
 * and THPs split, the partly mapped among them, pages migrated. Older
 * actions keep NULL: not counted then.
 */
static const char schema_v8[] = "ALTER TABLE actions ADD COLUMN split_bytes INTEGER;"
				"ALTER TABLE actions ADD COLUMN split_thps INTEGER;"
				"ALTER TABLE actions ADD COLUMN split_partial INTEGER;"
				"ALTER TABLE actions ADD COLUMN pages_migrated INTEGER;";

/*
 * Version 9: a row per complete batch (issue 29 part 10). A batch of many
 * cgroups is written in slices over several ticks, so a reader may find
 * one half written: a cgroup is present when the last complete batch saw
 * it. Older databases have none: each of their batches was written whole.
 */
static const char schema_v9[] = "CREATE TABLE batches(t_ms INTEGER PRIMARY KEY,"
				" cgroups INTEGER NOT NULL);";

/*
 * A step per version: its text, and after it the counter columns of rows
 * of the counter list and the event columns of rows of the per-size event
 * list that name this version (for version 1, the counters inside its
 * samples table, before its tail; for version 3, the events inside its
 * size_samples table). A counter or event kept from version N on adds a
 * step here whose text may be empty: its columns are the step.
 */
static const struct {
	const char *sql, *tail;
} migrations[] = {{schema_v1_head, schema_v1_tail},
		  {schema_v2, NULL},
		  {schema_v3_head, schema_v3_tail},
		  {schema_v4, NULL},
		  {"", NULL},
		  {schema_v6, NULL},
		  {schema_v7, NULL},
		  {schema_v8, NULL},
		  {schema_v9, NULL}};
_Static_assert(sizeof(migrations) / sizeof(*migrations) == HISTORY_SCHEMA_VERSION,
	       "a migration per schema version");

/* Every counter kept in history names a version that has a step above. */
#define HIST_VERSION_KNOWN_(f, j, version, ...)                                                    \
	_Static_assert(version <= HISTORY_SCHEMA_VERSION, #f ": no migration step for its "        \
							     "version");
TAOD_CG_COUNTERS(HIST_VERSION_KNOWN_)
#undef HIST_VERSION_KNOWN_
/* And every per-size event, from the version that made its table on. */
#define HIST_SIZE_VERSION_KNOWN_(f, j, version, ...)                                               \
	_Static_assert(version >= HIST_SIZE_TABLE_VERSION && version <= HISTORY_SCHEMA_VERSION,    \
		       #f ": no migration step for its version");
SIZE_EVENTS(HIST_SIZE_VERSION_KNOWN_)
#undef HIST_SIZE_VERSION_KNOWN_

int history_schema_version(sqlite3 *db)
{
	sqlite3_stmt *st;
	int v = -1;

	if (sqlite3_prepare_v2(db, "PRAGMA user_version", -1, &st, NULL) != SQLITE_OK)
		return -1;
	if (sqlite3_step(st) == SQLITE_ROW)
		v = sqlite3_column_int(st, 0);
	sqlite3_finalize(st);
	return v;
}

int history_schema_check(sqlite3 *db, char *err, size_t err_len)
{
	int v = history_schema_version(db);

	if (v < 0) {
		snprintf(err, err_len, "not a readable database: %s", sqlite3_errmsg(db));
		return -EIO;
	}
	if (v == 0) {
		snprintf(err, err_len, "no taod history in it (empty database)");
		return -ENODATA;
	}
	if (v > HISTORY_SCHEMA_VERSION) {
		snprintf(err, err_len, "schema version %d is newer than this taoctl knows (%d)", v,
			 HISTORY_SCHEMA_VERSION);
		return -EPROTO;
	}
	return 0;
}

int history_schema_apply(sqlite3 *db, char *err, size_t err_len)
{
	return history_schema_apply_to(db, HISTORY_SCHEMA_VERSION, err, err_len);
}

/*
 * The SQL of schema step @version: its text, the event columns and the
 * counter columns of this version. The tail closes the table the columns
 * go inside: size_samples' (events) at its version, else samples'
 * (counters). malloc'd; NULL on ENOMEM.
 */
static char *step_sql(int version)
{
	bool sizes_inside = version == HIST_SIZE_TABLE_VERSION;
	const char *tail = migrations[version - 1].tail;
	char *events =
	    hist_size_schema_step(size_events, SIZE_NEVENTS, version, migrations[version - 1].sql,
				  sizes_inside ? tail : NULL);
	char *step = events ? hist_schema_step(cg_counters, CG_NCOUNTERS, version, events,
					       sizes_inside ? NULL : tail)
			    : NULL;

	free(events);
	return step;
}

/* Schema step @version and its user_version, in one transaction. Nonzero on failure, @msg why. */
static int run_step(sqlite3 *db, int version, char **msg)
{
	char bump[64], *step = step_sql(version);
	int r;

	if (!step) {
		*msg = sqlite3_mprintf("out of memory");
		return -1;
	}
	snprintf(bump, sizeof(bump), "PRAGMA user_version = %d;", version);
	r = sqlite3_exec(db, "BEGIN IMMEDIATE", NULL, NULL, msg) ||
	    sqlite3_exec(db, step, NULL, NULL, msg) || sqlite3_exec(db, bump, NULL, NULL, msg) ||
	    sqlite3_exec(db, "COMMIT", NULL, NULL, msg);
	free(step);
	return r;
}

int history_schema_apply_to(sqlite3 *db, int target, char *err, size_t err_len)
{
	int v = history_schema_version(db);

	if (v < 0 || v > HISTORY_SCHEMA_VERSION || target > HISTORY_SCHEMA_VERSION)
		return history_schema_check(db, err, err_len);
	for (; v < target; v++) {
		char *msg = NULL;

		/* auto_vacuum only takes effect outside a transaction, on an empty file. */
		if ((v == 0 &&
		     sqlite3_exec(db, "PRAGMA auto_vacuum = INCREMENTAL", NULL, NULL, &msg)) ||
		    run_step(db, v + 1, &msg)) {
			snprintf(err, err_len, "schema version %d: %s", v + 1, msg ? msg : "?");
			sqlite3_free(msg);
			sqlite3_exec(db, "ROLLBACK", NULL, NULL, NULL);
			return -EIO;
		}
	}
	return 0;
}
