// SPDX-License-Identifier: GPL-2.0
/*
 * A history database an earlier taod wrote (data/history_v3.sql, made by
 * the main binary before the counter list, issue 18) reads as it did: every
 * report format comes out byte for byte as that taod's code rendered it
 * (data/golden.*), and taod goes on writing into it.
 *
 * The golden files are the old code's output, not this code's: regenerate
 * them (TAOD_GOLDEN_WRITE=1) only for a change meant to alter the reports.
 */
#include <criterion/criterion.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report/history/history.h"
#include "report/report.h"

#include "../../support/scratch.h"

#define DATA "unit/report/data/"

/* The recorded batches lie within this window (wall clock, ms). */
#define SINCE_MS 1796472999000LL
#define UNTIL_MS 1796473001000LL

/* A cgroup of the recording and its cumulative THP allocations there. */
#define CG_A "/process_api/8826698aaa8f57963ac0d73553c031e3/taodtest-7109-417235-A"

static char dir[SCRATCH_DIR_MAX], db_path[128];

/* The recorded database, loaded from its dump into the scratch directory. */
static void make_db(void)
{
	char *sql = scratch_read(DATA "history_v3.sql"), *msg = NULL;
	sqlite3 *db;

	scratch_make(dir, "golden");
	snprintf(db_path, sizeof(db_path), "%s/history.db", dir);
	cr_assert_eq(sqlite3_open(db_path, &db), SQLITE_OK);
	cr_assert_eq(sqlite3_exec(db, sql, NULL, NULL, &msg), SQLITE_OK, "%s", msg);
	sqlite3_close(db);
	free(sql);
}

static void remove_db(void)
{
	cr_assert_eq(scratch_remove(dir), 0);
}

TestSuite(report_golden, .init = make_db, .fini = remove_db);

static void load(struct report *r, bool with_series)
{
	struct report_query q = {.db_path = db_path,
				 .since_ms = SINCE_MS,
				 .until_ms = UNTIL_MS,
				 .with_series = with_series};
	char err[256];

	cr_assert_eq(report_load(&q, r, err, sizeof(err)), 0, "%s", err);
	/* What the command line sets, fixed so the output is the same each run. */
	r->generated_ms = UNTIL_MS;
	snprintf(r->db, sizeof(r->db), "history.db");
}

typedef int (*writer_fn)(FILE *, const struct report *);

/* @w's output of the recording equals golden file @name. */
static void matches(writer_fn w, bool with_series, const char *name)
{
	char path[128], *out = NULL, *want;
	size_t len = 0;
	FILE *f = open_memstream(&out, &len);
	struct report r;

	load(&r, with_series);
	r.all = true; /* every row, as that taod showed them (the default leaves idle ones out) */
	cr_assert_eq(w(f, &r), 0);
	fclose(f);
	report_free(&r);
	snprintf(path, sizeof(path), DATA "%s", name);
	if (getenv("TAOD_GOLDEN_WRITE")) {
		f = fopen(path, "w");
		cr_assert_not_null(f, "%s", path);
		fputs(out, f);
		fclose(f);
	}
	want = scratch_read(path);
	cr_expect_str_eq(out, want, "%s differs from what the earlier taod wrote", name);
	free(want);
	free(out);
}

Test(report_golden, report_write_table)
{
	matches(report_write_table, false, "golden.txt");
}

Test(report_golden, report_write_json)
{
	matches(report_write_json, false, "golden.json");
}

Test(report_golden, report_write_csv)
{
	matches(report_write_csv, false, "golden.csv");
}

Test(report_golden, report_write_html)
{
	matches(report_write_html, true, "golden.html");
}

static const struct report_cgroup *find(const struct report *r, const char *path)
{
	for (size_t i = 0; i < r->ncgroups; i++)
		if (!strcmp(r->cgroups[i].path, path))
			return &r->cgroups[i];
	return NULL;
}

static uint64_t cgroup_id_of(const char *path)
{
	struct report r;
	const struct report_cgroup *c;
	uint64_t id;

	load(&r, false);
	c = find(&r, path);
	cr_assert_not_null(c, "%s", path);
	id = c->cgroup_id;
	report_free(&r);
	return id;
}

/* A restarted taod continues the recorded cgroup's row and its cumulative counts. */
Test(report_golden, history_record)
{
	struct taod_cg_counters counts = {
	    .thp_fault_alloc = 3, .pmd_split = 2, .pmd_unmap_whole = 1};
	uint64_t id = cgroup_id_of(CG_A);
	struct cgroup_table t;
	struct report before, after;
	const struct report_cgroup *b, *a;
	struct history *h;
	char err[256];

	load(&before, false);
	b = find(&before, CG_A);
	cr_assert_eq(history_open(&h, db_path, err, sizeof(err)), 0, "%s", err);
	cr_assert_eq(history_begin_run(h, UNTIL_MS - 100, "test"), 0);
	cgroup_table_init(&t, 4);
	cgroup_table_set_counters(&t, id, &counts, 1);
	cgroup_table_touch(&t, id, CG_A, 0, 1);
	cr_assert_eq(history_record(h, &t, UNTIL_MS - 50, NULL, NULL, NULL), 0);
	history_close(h);
	cgroup_table_free(&t);
	load(&after, false);
	a = find(&after, CG_A);
	cr_assert_eq(a->thp_alloc, b->thp_alloc + 3);
	cr_assert_eq(a->counts[CG_IDX_pmd_split], b->counts[CG_IDX_pmd_split] + 2);
	cr_assert_eq(a->counts[CG_IDX_pmd_unmap_whole], b->counts[CG_IDX_pmd_unmap_whole] + 1);
	cr_assert_eq(a->thp_alloc_total, b->thp_alloc_total + 3, "continued across the restart");
	cr_assert_eq(a->pmd_split_total, b->pmd_split_total + 2);
	cr_assert_eq(a->samples, b->samples + 1);
	report_free(&before);
	report_free(&after);
}

/* Every table, column and index of @path, as SQLite keeps their text. */
static char *schema_of(const char *path)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	sqlite3_stmt *st;
	sqlite3 *db;

	cr_assert_eq(sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, NULL), SQLITE_OK);
	cr_assert_eq(
	    sqlite3_prepare_v2(db, "SELECT sql FROM sqlite_master ORDER BY name", -1, &st, NULL),
	    SQLITE_OK);
	while (sqlite3_step(st) == SQLITE_ROW)
		fprintf(f, "%s\n", (const char *)sqlite3_column_text(st, 0));
	sqlite3_finalize(st);
	sqlite3_close(db);
	fclose(f);
	return buf;
}

/* A new database has, word for word, the schema the earlier taod made, migrated. */
Test(report_golden, history_schema_apply)
{
	char fresh[160], err[256], *want, *got;
	struct history *h;

	/* The old database, migrated on open, has what a new one gets. */
	cr_assert_eq(history_open(&h, db_path, err, sizeof(err)), 0, "%s", err);
	history_close(h);
	want = schema_of(db_path);
	snprintf(fresh, sizeof(fresh), "%s/fresh.db", dir);
	cr_assert_eq(history_open(&h, fresh, err, sizeof(err)), 0, "%s", err);
	history_close(h);
	got = schema_of(fresh);
	cr_expect_str_eq(got, want);
	free(got);
	free(want);
}
