// SPDX-License-Identifier: GPL-2.0
/*
 * The history's counter columns come from the counter list: the schema
 * steps, the writer's statements and the reader's sums. A list of the
 * test's own, with a counter kept from a version 4, shows what one more
 * counter gets from its row alone.
 */
#include <criterion/criterion.h>
#include <sqlite3.h>
#include <stdlib.h>
#include <string.h>

#include "report/history/history_columns.h"
#include "report/history/history.h"

struct test_counters {
	__u64 alpha, beta, gamma;
};

#define TEST_COUNTERS(X)                                                                           \
	X(alpha, "alpha", 0, "", "")   /* not kept */                                              \
	X(beta, "beta", 1, "", "")     /* kept from the first schema */                            \
	X(gamma, "gamma_n", 4, "", "") /* one more counter, kept from version 4 */
#define TEST_ROW_(...) CG_COUNTER_ROW(struct test_counters, __VA_ARGS__)
static const struct cg_counter list[] = {TEST_COUNTERS(TEST_ROW_)};
#define NLIST (sizeof(list) / sizeof(*list))

static char *columns(const struct cg_counter *t, size_t n, int from, int to, const char *fmt)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	hist_columns(f, t, n, from, to, fmt, ", ");
	fclose(f);
	return buf;
}

/* taod's own list: the columns its databases have had since version 1. */
Test(history_columns, hist_columns)
{
	char *s = columns(cg_counters, CG_NCOUNTERS, 1, HISTORY_SCHEMA_VERSION, "%s");

	cr_expect_str_eq(s, "thp_alloc, pmd_split, pmd_unmap_whole");
	free(s);
	s = columns(list, NLIST, 1, 3, "d_%s");
	cr_expect_str_eq(s, "d_thp_alloc, d_beta", "gamma_n is not in a version 3 database");
	free(s);
	s = columns(list, NLIST, 4, 4, "%s");
	cr_expect_str_eq(s, "gamma_n", "what version 4 added");
	free(s);
}

Test(history_columns, hist_schema_step)
{
	char *v1 = hist_schema_step(list, NLIST, 1, "CREATE TABLE samples(cg, ", ", class);");
	char *v4 = hist_schema_step(list, NLIST, 4, "", NULL);
	char *v2 = hist_schema_step(list, NLIST, 2, "CREATE TABLE other(x);", NULL);

	cr_expect_str_eq(v1,
			 "CREATE TABLE samples(cg, thp_alloc INTEGER NOT NULL, beta INTEGER NOT "
			 "NULL, d_thp_alloc INTEGER NOT NULL, d_beta INTEGER NOT NULL, class);");
	cr_expect_str_eq(v4,
			 "ALTER TABLE samples ADD COLUMN gamma_n INTEGER NOT NULL DEFAULT 0;"
			 "ALTER TABLE samples ADD COLUMN d_gamma_n INTEGER NOT NULL DEFAULT 0;");
	cr_expect_str_eq(v2, "CREATE TABLE other(x);", "a step that adds no counter");
	free(v1);
	free(v4);
	free(v2);
}

static void exec(sqlite3 *db, const char *sql)
{
	char *msg = NULL;

	cr_assert_eq(sqlite3_exec(db, sql, NULL, NULL, &msg), SQLITE_OK, "%s: %s", sql, msg);
}

static sqlite3_stmt *prepare(sqlite3 *db, char *sql)
{
	sqlite3_stmt *st;

	cr_assert_not_null(sql);
	cr_assert_eq(sqlite3_prepare_v2(db, sql, -1, &st, NULL), SQLITE_OK, "%s: %s", sql,
		     sqlite3_errmsg(db));
	free(sql);
	return st;
}

/*
 * A database made at version 1 and migrated by version 4's step takes the
 * writer's insert of all the list's columns and reads them back; the row
 * from before the step counts 0 of the new counter.
 */
Test(history_columns, hist_insert_sample_sql)
{
	char *v1 =
	    hist_schema_step(list, NLIST, 1,
			     "CREATE TABLE samples(cg INTEGER NOT NULL, t_ms INTEGER NOT NULL,"
			     " run INTEGER, interval_ms INTEGER, anon_bytes INTEGER,"
			     " thp_bytes INTEGER, coverage_pct REAL, ",
			     ", class TEXT, PRIMARY KEY(cg, t_ms)) WITHOUT ROWID;");
	char *v4 = hist_schema_step(list, NLIST, 4, "", NULL);
	sqlite3_stmt *st;
	sqlite3 *db;

	cr_assert_eq(sqlite3_open(":memory:", &db), SQLITE_OK);
	exec(db, v1);
	exec(db, "INSERT INTO samples VALUES(1, 1000, 1, 0, 0, 0, 0, 5, 6, 5, 6, 'x')");
	exec(db, v4);
	st = prepare(db, hist_insert_sample_sql(list, NLIST, 4));
	for (int i = 1; i <= 7; i++)
		sqlite3_bind_int64(st, i, i == 2 ? 2000 : 1);
	for (int i = 8; i <= 13; i++) /* thp_alloc, beta, gamma_n, and the three deltas */
		sqlite3_bind_int64(st, i, 10 * i);
	sqlite3_bind_text(st, 14, "y", -1, SQLITE_STATIC);
	cr_assert_eq(sqlite3_step(st), SQLITE_DONE, "%s", sqlite3_errmsg(db));
	sqlite3_finalize(st);
	st = prepare(db, hist_last_sample_sql(list, NLIST, 4));
	sqlite3_bind_int64(st, 1, 1);
	cr_assert_eq(sqlite3_step(st), SQLITE_ROW);
	cr_expect_eq(sqlite3_column_int64(st, 2), 100, "gamma_n's cumulative column");
	cr_expect_eq(sqlite3_column_int64(st, 3), 2000, "then t_ms");
	sqlite3_finalize(st);
	st = prepare(db, hist_columns_sql(list, NLIST, 4, "SELECT ", "sum(d_%s)", " FROM samples"));
	cr_assert_eq(sqlite3_step(st), SQLITE_ROW);
	cr_expect_eq(sqlite3_column_int64(st, 0), 5 + 110, "d_thp_alloc over both rows");
	cr_expect_eq(sqlite3_column_int64(st, 2), 0 + 130, "the older row counts 0 of gamma_n");
	sqlite3_finalize(st);
	sqlite3_close(db);
	free(v1);
	free(v4);
}

/* The per-size events' columns of size_samples, from a list of the test's
 * own: made inside the table at its version, one more event added later by
 * its own step. */
struct test_sizes {
	__u64 one[TAOD_MAX_ORDER], two[TAOD_MAX_ORDER], three[TAOD_MAX_ORDER];
};
#define TEST_SIZES(X)                                                                              \
	X(one, "one", 3, 1, "", "", "", "")                                                        \
	X(two, "two_n", 3, 0, "", "", "", "")                                                      \
	X(three, "three", 6, 1, "", "", "", "") /* one more event, kept from version 6 */
#define TEST_SIZE_ROW_(f, j, h, m, ...) {.field = #f, .json = j, .history = h, .made = m},
static const struct size_event sizes[] = {TEST_SIZES(TEST_SIZE_ROW_)};
#define NSIZES (sizeof(sizes) / sizeof(*sizes))

Test(history_columns, hist_size_steps_and_statements)
{
	char *v3 = hist_size_schema_step(sizes, NSIZES, 3, "CREATE TABLE size_samples(cg, ",
					 ", PRIMARY KEY(cg));");
	char *v6 = hist_size_schema_step(sizes, NSIZES, 6, "", NULL);
	char *v4 = hist_size_schema_step(sizes, NSIZES, 4, "ALTER TABLE x ADD y;", NULL);
	char *ins = hist_size_insert_sql(sizes, NSIZES, 6);
	char *old = hist_size_sums_sql(sizes, NSIZES, 5);

	cr_expect_str_eq(v3,
			 "CREATE TABLE size_samples(cg, d_one INTEGER NOT NULL, d_two_n INTEGER "
			 "NOT NULL, PRIMARY KEY(cg));");
	cr_expect_str_eq(v6,
			 "ALTER TABLE size_samples ADD COLUMN d_three INTEGER NOT NULL DEFAULT 0;");
	cr_expect_str_eq(v4, "ALTER TABLE x ADD y;", "a step that adds no event");
	cr_expect_str_eq(ins,
			 "INSERT OR REPLACE INTO size_samples(cg, t_ms, size_kb, mapped_bytes,"
			 " coverage_pct, d_one, d_two_n, d_three) VALUES(?, ?, ?, ?, ?, ?, ?, ?)");
	cr_expect_str_eq(old,
			 "SELECT size_kb, sum(d_one), sum(d_two_n) FROM size_samples WHERE t_ms "
			 "> ?1 AND t_ms <= ?2 AND cg = ?3 GROUP BY size_kb",
			 "a version 5 database has no d_three");
	free(v3);
	free(v6);
	free(v4);
	free(ins);
	free(old);
}

/* taod's own list: the event columns a new database gets, in the list's order. */
Test(history_columns, size_samples_columns_of_the_list)
{
	char *ins = hist_size_insert_sql(size_events, SIZE_NEVENTS, HISTORY_SCHEMA_VERSION);

	cr_expect_str_eq(ins, "INSERT OR REPLACE INTO size_samples(cg, t_ms, size_kb, mapped_bytes,"
			      " coverage_pct, d_fault_alloc, d_partial_unmap, d_split, d_collapse)"
			      " VALUES(?, ?, ?, ?, ?, ?, ?, ?, ?)");
	free(ins);
}
