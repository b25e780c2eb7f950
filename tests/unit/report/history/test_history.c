// SPDX-License-Identifier: GPL-2.0
/* History database: schema, batches, restarts, identity, retention, queries. */
#include <criterion/criterion.h>
#include <errno.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "report/history/history.h"
#include "report/history/history_peak.h"
#include "report/report.h"
#include "report/render/report_sizes.h"

#include "../../support/scratch.h"

static char dir[SCRATCH_DIR_MAX], db_path[128];

static void make_tmp(void)
{
	scratch_make(dir, "hist");
	snprintf(db_path, sizeof(db_path), "%s/sub/history.db", dir);
}

static void remove_tmp(void)
{
	cr_assert_eq(scratch_remove(dir), 0);
}

TestSuite(history, .init = make_tmp, .fini = remove_tmp);

/* Puts cgroup @id at @path with these cumulative BPF counters into @t. */
static void set_cg(struct cgroup_table *t, uint64_t id, const char *path, uint64_t allocs,
		   uint64_t splits, uint64_t anon, uint64_t thp)
{
	struct taod_cg_counters c = {.thp_fault_alloc = allocs, .pmd_split = splits};
	struct memstat m = {.anon_bytes = anon, .thp_bytes = thp, .has_anon = true};
	struct cgroup_entry *e;

	cgroup_table_set_counters(t, id, &c, 1);
	e = cgroup_table_touch(t, id, path, 0, 1);
	cgroup_entry_set_memstat(e, &m, true);
}

static struct history *open_h(void)
{
	struct history *h;
	char err[256];

	cr_assert_eq(history_open(&h, db_path, err, sizeof(err)), 0, "%s", err);
	cr_assert_eq(history_begin_run(h, 500, "test"), 0);
	return h;
}

static void load(struct report *r, int64_t since, int64_t until, const char *glob)
{
	struct report_query q = {.db_path = db_path,
				 .since_ms = since,
				 .until_ms = until,
				 .glob = glob,
				 .with_series = true};
	char err[256];

	cr_assert_eq(report_load(&q, r, err, sizeof(err)), 0, "%s", err);
}

static const struct report_cgroup *find(const struct report *r, const char *path, size_t nth)
{
	for (size_t i = 0; i < r->ncgroups; i++)
		if (!strcmp(r->cgroups[i].path, path) && nth-- == 0)
			return &r->cgroups[i];
	return NULL;
}

static int64_t query_int(const char *sql)
{
	sqlite3 *db;
	sqlite3_stmt *st;
	int64_t v = -1;

	cr_assert_eq(sqlite3_open_v2(db_path, &db, SQLITE_OPEN_READONLY, NULL), SQLITE_OK);
	cr_assert_eq(sqlite3_prepare_v2(db, sql, -1, &st, NULL), SQLITE_OK, "%s", sql);
	if (sqlite3_step(st) == SQLITE_ROW)
		v = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	sqlite3_close(db);
	return v;
}

Test(history, schema_wal_and_incremental_vacuum)
{
	struct history *h = open_h();
	sqlite3 *db = history_db(h);
	sqlite3_stmt *st;

	sqlite3_prepare_v2(db, "PRAGMA journal_mode", -1, &st, NULL);
	cr_assert_eq(sqlite3_step(st), SQLITE_ROW);
	cr_assert_str_eq((const char *)sqlite3_column_text(st, 0), "wal");
	sqlite3_finalize(st);
	history_close(h);
	cr_assert_eq(query_int("PRAGMA user_version"), HISTORY_SCHEMA_VERSION);
	cr_assert_eq(query_int("PRAGMA auto_vacuum"), 2, "incremental");
	h = open_h(); /* a second open migrates nothing and keeps the runs */
	history_close(h);
	cr_assert_eq(query_int("SELECT count(*) FROM runs"), 2);
}

Test(history, batches_store_deltas_and_window_aggregates)
{
	struct history *h = open_h();
	struct cgroup_table t;
	struct report r;
	const struct report_cgroup *c;

	cgroup_table_init(&t, 4);
	for (int i = 1; i <= 4; i++) {
		set_cg(&t, 10, "/a", 3 * i, i, 100, 25 * i);
		cr_assert_eq(history_record(h, &t, 1000 * i, NULL, NULL, NULL), 0);
	}
	history_close(h);
	load(&r, 0, 10000, NULL);
	c = find(&r, "/a", 0);
	cr_assert_not_null(c);
	cr_assert_eq(c->samples, 4);
	cr_assert_eq(c->thp_alloc, 12);
	cr_assert_eq(c->counts[CG_IDX_pmd_split], 4);
	cr_assert_float_eq(c->coverage_now, 100.0, 1e-9);
	cr_assert_float_eq(c->coverage_min, 25.0, 1e-9);
	cr_assert_float_eq(c->coverage_mean, 62.5, 1e-9);
	cr_assert_float_eq(c->coverage_max, 100.0, 1e-9);
	cr_assert_float_eq(report_split_ratio(c), 4.0 / 12, 1e-9);
	cr_assert_eq(c->npoints, 4);
	cr_assert_float_eq(c->points[1].split_rate, 1.0, 1e-9, "one split in one second");
	report_free(&r);
	/* A window that holds only the last two batches counts only their deltas. */
	load(&r, 2000, 4000, NULL);
	c = find(&r, "/a", 0);
	cr_assert_eq(c->thp_alloc, 6);
	cr_assert_eq(c->samples, 2);
	report_free(&r);
	cgroup_table_free(&t);
}

Test(history, restart_continues_the_series)
{
	struct history *h = open_h();
	struct cgroup_table t;
	struct report r;
	const struct report_cgroup *c;

	cgroup_table_init(&t, 4);
	set_cg(&t, 10, "/a", 7, 2, 100, 50);
	history_record(h, &t, 1000, NULL, NULL, NULL);
	history_close(h);
	cgroup_table_free(&t);

	/* taod restarts: BPF counters start from zero again. */
	h = open_h();
	cgroup_table_init(&t, 4);
	set_cg(&t, 10, "/a", 3, 1, 100, 50);
	history_record(h, &t, 2000, NULL, NULL, NULL);
	set_cg(&t, 10, "/a", 5, 1, 100, 50);
	history_record(h, &t, 3000, NULL, NULL, NULL);
	history_close(h);
	load(&r, 0, 10000, NULL);
	cr_assert_eq(r.ncgroups, 1, "the same cgroup, one row");
	c = find(&r, "/a", 0);
	cr_assert_eq(c->thp_alloc, 12);
	cr_assert_eq(c->counts[CG_IDX_pmd_split], 3);
	cr_assert_eq(c->thp_alloc_total, 12);
	cr_assert_eq(r.nruns, 2);
	report_free(&r);
	cgroup_table_free(&t);
}

Test(history, gone_and_reused_cgroups_keep_their_own_history)
{
	struct history *h = open_h();
	struct cgroup_table t;
	struct report r;

	cgroup_table_init(&t, 4);
	cgroup_table_begin_tick(&t);
	set_cg(&t, 10, "/a", 4, 0, 100, 50);
	set_cg(&t, 11, "/b", 9, 9, 100, 0);
	history_record(h, &t, 1000, NULL, NULL, NULL);
	/* /b goes; /a is removed and made again: same path, new id. */
	cgroup_table_begin_tick(&t);
	set_cg(&t, 12, "/a", 1, 0, 100, 100);
	cgroup_table_sweep(&t, NULL, NULL, NULL, 0);
	history_record(h, &t, 2000, NULL, NULL, NULL);
	/* id 12 is reused by another path: a third row. */
	cgroup_table_begin_tick(&t);
	cgroup_table_sweep(&t, NULL, NULL, NULL, 0);
	set_cg(&t, 12, "/c", 2, 0, 100, 100);
	history_record(h, &t, 3000, NULL, NULL, NULL);
	history_close(h);
	load(&r, 0, 10000, NULL);
	cr_assert_eq(r.ncgroups, 4);
	cr_assert_eq(find(&r, "/b", 0)->thp_alloc, 9, "a gone cgroup stays in the report");
	cr_assert_eq(find(&r, "/a", 0)->cgroup_id, 10);
	cr_assert_eq(find(&r, "/a", 0)->thp_alloc, 4);
	cr_assert_eq(find(&r, "/a", 1)->cgroup_id, 12);
	cr_assert_eq(find(&r, "/a", 1)->thp_alloc, 1);
	cr_assert_eq(find(&r, "/c", 0)->thp_alloc, 2);
	cr_assert_not(report_cgroup_present(&r, find(&r, "/b", 0)));
	cr_assert_not(report_cgroup_present(&r, find(&r, "/a", 1)), "the id went to /c");
	cr_assert(report_cgroup_present(&r, find(&r, "/c", 0)));
	report_free(&r);
	load(&r, 0, 10000, "/[ab]");
	cr_assert_eq(r.ncgroups, 3, "glob filter");
	cr_assert_eq(r.thp_alloc, 14);
	report_free(&r);
	cgroup_table_free(&t);
}

/* Issue 29 part 10: a batch of many cgroups is written a slice a tick. A
 * report read between slices still finds every cgroup of the last whole
 * batch present, and the whole batch counts as one. */
static const struct history_slice two = {.max = 2};

/* Cgroups 10, 11, ... at @paths, each with @allocs faults, half its anon THP. */
static void set_all(struct cgroup_table *t, const char *const *paths, int n, uint64_t allocs)
{
	for (int i = 0; i < n; i++)
		set_cg(t, 10 + i, paths[i], allocs, 0, 100, 50);
}

Test(history, a_batch_in_slices_reads_as_the_last_whole_one_until_done)
{
	struct history *h = open_h();
	struct cgroup_table t;
	struct report r;
	static const char *const paths[] = {"/a", "/b", "/c", "/d", "/e"};

	cgroup_table_init(&t, 8);
	set_all(&t, paths, 5, 2);
	cr_assert_eq(history_record(h, &t, 1000, NULL, NULL, NULL), 0);
	set_all(&t, paths, 5, 6);
	cr_assert_eq(history_record_slice(h, &t, 2000, NULL, NULL, NULL, &two), HISTORY_MORE);
	load(&r, 0, 10000, NULL);
	cr_assert_eq(r.last_batch_ms, 1000, "the batch at 2000 is not whole yet");
	for (int i = 0; i < 5; i++)
		cr_assert(report_cgroup_present(&r, find(&r, paths[i], 0)), "%s", paths[i]);
	report_free(&r);
	cr_assert_eq(history_record_slice(h, &t, 9999, NULL, NULL, NULL, &two), HISTORY_MORE);
	cr_assert_eq(history_record_slice(h, &t, 9999, NULL, NULL, NULL, &two), 0);
	history_close(h);
	load(&r, 0, 10000, NULL);
	cr_assert_eq(r.last_batch_ms, 2000, "every slice has the batch's time");
	cr_assert_eq(r.batches, 2);
	for (int i = 0; i < 5; i++) {
		const struct report_cgroup *c = find(&r, paths[i], 0);

		cr_assert_eq(c->samples, 2, "%s", paths[i]);
		cr_assert_eq(c->thp_alloc, 6, "%s: 2, then 4 more", paths[i]);
	}
	report_free(&r);
	cgroup_table_free(&t);
}

/* A slice that fails abandons its batch: what the earlier slices wrote is
 * remembered, the rest keeps the last batch's memory, so the next batch
 * counts every event once. */
Test(history, an_abandoned_slice_loses_and_doubles_nothing)
{
	struct history *h = open_h();
	struct cgroup_table t;
	struct report r;
	sqlite3 *other;
	static const char *const paths[] = {"/a", "/b", "/c", "/d"};

	cgroup_table_init(&t, 8);
	set_all(&t, paths, 4, 1);
	cr_assert_eq(history_record(h, &t, 1000, NULL, NULL, NULL), 0);
	set_all(&t, paths, 4, 5);
	cr_assert_eq(history_record_slice(h, &t, 2000, NULL, NULL, NULL, &two), HISTORY_MORE);
	/* Another writer holds the database: the second slice cannot start. */
	cr_assert_eq(sqlite3_open(db_path, &other), SQLITE_OK);
	sqlite3_busy_timeout(history_db(h), 1);
	cr_assert_eq(sqlite3_exec(other, "BEGIN IMMEDIATE", NULL, NULL, NULL), SQLITE_OK);
	cr_assert_lt(history_record_slice(h, &t, 2000, NULL, NULL, NULL, &two), 0);
	sqlite3_exec(other, "COMMIT", NULL, NULL, NULL);
	sqlite3_close(other);
	set_all(&t, paths, 4, 9);
	cr_assert_eq(history_record(h, &t, 3000, NULL, NULL, NULL), 0);
	history_close(h);
	load(&r, 0, 10000, NULL);
	for (int i = 0; i < 4; i++) {
		const struct report_cgroup *c = find(&r, paths[i], 0);

		cr_assert_eq(c->thp_alloc, 9, "%s: each fault once", paths[i]);
		cr_assert_eq(c->samples, i < 2 ? 3 : 2, "%s", paths[i]);
	}
	report_free(&r);
	cgroup_table_free(&t);
}

static const char *class_by_time(void *ctx, const struct cgroup_entry *e)
{
	(void)e;
	return *(int *)ctx < 2 ? "good" : "abuser";
}

Test(history, class_changes_and_actions)
{
	struct history *h = open_h();
	struct cgroup_table t;
	struct action_record a = {.time_ms = 2500, .result = RESULT_DRY_RUN};
	struct report r;
	const struct report_cgroup *c;
	int batch;

	cgroup_table_init(&t, 4);
	set_cg(&t, 10, "/a", 1, 1, 100, 50);
	for (batch = 0; batch < 3; batch++)
		history_record(h, &t, 1000 * (batch + 1), NULL, class_by_time, &batch);
	a.req.kind = ACTION_SHATTER;
	a.req.cgroup_id = 10;
	a.req.cgroup = "/a";
	snprintf(a.req.policy, sizeof(a.req.policy), "tenants");
	snprintf(a.detail, sizeof(a.detail), "would write max to memory.thp_shatter");
	cr_assert_eq(history_record_action(h, &a), 0);
	history_close(h);
	load(&r, 0, 10000, NULL);
	c = find(&r, "/a", 0);
	cr_assert_str_eq(c->class, "abuser");
	cr_assert_eq(c->nchanges, 2);
	cr_assert_str_eq(c->changes[0].from, "");
	cr_assert_str_eq(c->changes[0].to, "good");
	cr_assert_str_eq(c->changes[1].from, "good");
	cr_assert_str_eq(c->changes[1].to, "abuser");
	cr_assert_eq(c->nactions, 1);
	cr_assert_str_eq(c->actions[0].kind, "shatter");
	cr_assert_str_eq(c->actions[0].result, "dry-run");
	cr_assert_str_eq(c->actions[0].policy, "tenants");
	report_free(&r);
	cgroup_table_free(&t);
}

Test(history, machine_figures)
{
	struct history *h = open_h();
	struct cgroup_table t;
	struct machine_stats *m = calloc(1, sizeof(*m));
	struct report r;

	cgroup_table_init(&t, 4);
	m->nzones = 1;
	m->zones[0] = (struct zone_stat){.node = 0,
					 .name = "Normal",
					 .managed_pages = 1000,
					 .free_pages = 400,
					 .norders = 3,
					 .free_blocks = {5, 6, 7}};
	m->nmthp = 1;
	m->mthp[0] = (struct mthp_stat){.size_kb = 2048, .name = "split", .value = 10};
	history_record(h, &t, 1000, m, NULL, NULL);
	m->mthp[0].value = 17;
	m->zones[0].free_pages = 300;
	history_record(h, &t, 2000, m, NULL, NULL);
	history_close(h);
	load(&r, 0, 10000, NULL);
	cr_assert_eq(r.nzones, 1);
	cr_assert_eq(r.zones[0].free_pages, 300, "the latest figures");
	cr_assert_str_eq(r.zones[0].free_blocks, "5 6 7");
	cr_assert_eq(r.nmthp, 1);
	cr_assert_eq(r.mthp[0].value, 17);
	cr_assert_eq(r.mthp[0].delta, 7);
	report_free(&r);
	free(m);
	cgroup_table_free(&t);
}

/* The THP bytes tenants held at their peak: the root's children (v2: the
 * root has no memory.stat), a descendant inside its parent's figure, the
 * root's own figure where it has one (v1). */
Test(history, thp_peak_of_the_tenants)
{
	struct history *h = open_h();
	struct cgroup_table t;
	uint64_t bytes, at;

	cgroup_table_init(&t, 4);
	set_cg(&t, 10, "/a", 0, 0, 0, 100 << 20);
	set_cg(&t, 11, "/a/b", 0, 0, 0, 50 << 20); /* in /a's figure already */
	set_cg(&t, 12, "/c", 0, 0, 0, 20 << 20);
	history_record(h, &t, 1000, NULL, NULL, NULL);
	set_cg(&t, 10, "/a", 0, 0, 0, 10 << 20);
	set_cg(&t, 12, "/c", 0, 0, 0, 0);
	history_record(h, &t, 2000, NULL, NULL, NULL);
	cr_assert_eq(history_thp_peak(h, 0, &bytes, &at), 0);
	cr_assert_eq(bytes, 120 << 20);
	cr_assert_eq(at, 1000);
	cr_assert_eq(history_thp_peak(h, 1500, &bytes, &at), 0);
	cr_assert_eq(bytes, 10 << 20);
	cr_assert_eq(at, 2000);
	cr_assert_eq(history_thp_peak(h, 5000, &bytes, &at), 0);
	cr_assert_eq(bytes, 0, "no batch in the window");
	set_cg(&t, 1, "/", 0, 0, 0, 500 << 20);
	history_record(h, &t, 3000, NULL, NULL, NULL);
	cr_assert_eq(history_thp_peak(h, 0, &bytes, &at), 0);
	cr_assert_eq(bytes, 500 << 20);
	history_close(h);
	cgroup_table_free(&t);
}

Test(history, retention_by_age)
{
	struct history *h = open_h();
	struct cgroup_table t;

	cgroup_table_init(&t, 4);
	cgroup_table_begin_tick(&t);
	set_cg(&t, 11, "/old", 1, 0, 100, 0);
	history_record(h, &t, 1000, NULL, NULL, NULL);
	cgroup_table_begin_tick(&t);
	set_cg(&t, 10, "/a", 1, 0, 100, 50);
	cgroup_table_sweep(&t, NULL, NULL, NULL, 0);
	for (int i = 2; i <= 10; i++)
		history_record(h, &t, 1000 * i, NULL, NULL, NULL);
	cr_assert_eq(history_retain(h, 10000, 5000, 0), 0);
	history_close(h);
	cr_assert_eq(query_int("SELECT min(t_ms) FROM samples"), 5000);
	cr_assert_eq(query_int("SELECT count(*) FROM cgroups WHERE path = '/old'"), 0,
		     "a gone cgroup goes with its last sample");
	cr_assert_eq(query_int("SELECT count(*) FROM cgroups WHERE path = '/a'"), 1);
	cgroup_table_free(&t);
}

Test(history, retention_by_size_keeps_the_newest)
{
	struct history *h = open_h();
	struct cgroup_table t;
	const uint64_t limit = 256 << 10;
	char path[32];

	cgroup_table_init(&t, 4);
	for (int b = 1; b <= 60; b++) {
		for (int i = 0; i < 100; i++) {
			snprintf(path, sizeof(path), "/tenant-%03d", i);
			set_cg(&t, 100 + i, path, b * i, b, 1 << 20, 1 << 19);
		}
		cr_assert_eq(history_record(h, &t, 1000 * b, NULL, NULL, NULL), 0);
	}
	cr_assert_gt(history_size_bytes(h), (int64_t)limit);
	cr_assert_eq(history_retain(h, 60000, 0, limit), 0);
	cr_assert_leq(history_size_bytes(h), (int64_t)limit);
	history_close(h);
	cr_assert_eq(query_int("SELECT max(t_ms) FROM samples"), 60000, "newest batch kept");
	cr_assert_gt(query_int("SELECT min(t_ms) FROM samples"), 1000, "oldest batches gone");
	cr_assert_eq(query_int("SELECT count(*) FROM pragma_integrity_check"
			       " WHERE integrity_check = 'ok'"),
		     1);
	cgroup_table_free(&t);
}

Test(history, report_errors_name_the_file)
{
	struct report_query q = {.db_path = db_path, .until_ms = 1};
	struct report r;
	char err[512];
	FILE *f;

	cr_assert_neq(report_load(&q, &r, err, sizeof(err)), 0);
	cr_assert(strstr(err, db_path), "%s", err);
	report_free(&r);
	snprintf(db_path, sizeof(db_path), "%s/empty.db", dir);
	f = fopen(db_path, "w");
	fclose(f);
	cr_assert_neq(report_load(&q, &r, err, sizeof(err)), 0);
	cr_assert(strstr(err, "no taod history"), "%s", err);
	report_free(&r);
}

/* A boot-zone TAO kernel's figures: @shattered etc. as vmstat has them now. */
static void set_tao(struct machine_stats *m, uint64_t pgalloc, uint64_t shattered, uint64_t failed,
		    uint64_t discarded)
{
	m->nzones = 1;
	m->zones[0] = (struct zone_stat){.node = 0,
					 .name = "NoSplit",
					 .present_pages = 262144,
					 .managed_pages = 262144,
					 .free_pages = 1000,
					 .order = 4};
	m->tao_present = 1u << TVM_PGALLOC_NOSPLIT | 1u << TVM_SHATTER | 1u << TVM_SHATTER_FAILED |
			 1u << TVM_SHATTER_DISCARDED;
	m->tao[TVM_PGALLOC_NOSPLIT] = pgalloc;
	m->tao[TVM_SHATTER] = shattered;
	m->tao[TVM_SHATTER_FAILED] = failed;
	m->tao[TVM_SHATTER_DISCARDED] = discarded;
}

Test(history, tao_counters_zone_order_and_shatter_series)
{
	struct history *h = open_h();
	struct cgroup_table t;
	struct machine_stats *m = calloc(1, sizeof(*m));
	struct report r;
	const struct report_counter *c;
	uint64_t pages, saved;

	cgroup_table_init(&t, 4);
	set_cg(&t, 10, "/a", 1, 0, 100, 50); /* the window's span comes from samples */
	set_tao(m, 100, 7, 1, 2);
	history_record(h, &t, 1000, m, NULL, NULL);
	set_tao(m, 150, 7, 1, 2); /* only pgalloc moved */
	history_record(h, &t, 2000, m, NULL, NULL);
	set_tao(m, 150, 11, 2, 2);
	history_record(h, &t, 3000, m, NULL, NULL);
	history_record(h, &t, 4000, m, NULL, NULL); /* nothing moved */
	history_close(h);
	cr_assert_eq(query_int("SELECT count(*) FROM tao_samples WHERE stat = 'thp_shatter_page'"),
		     2, "a row only where the value changed");
	cr_assert_eq(query_int("SELECT count(*) FROM tao_samples WHERE stat = 'thp_hvo_page'"), 0,
		     "no row for a counter the kernel lacks");
	cr_assert_eq(query_int("SELECT zone_order FROM zone_samples LIMIT 1"), 4);

	load(&r, 1500, 10000, NULL);
	cr_assert_eq(r.nzones, 1);
	cr_assert_eq(r.zones[0].order, 4);
	cr_assert_eq(r.tao.ncounters, 4);
	cr_assert_str_eq(r.tao.counters[0].stat, "pgalloc_nosplit", "in vmstat's order");
	c = report_tao_counter(&r, "thp_shatter_page");
	cr_assert(c && c->value == 11 && c->delta == 4, "from the value at the window's start");
	c = report_tao_counter(&r, "pgalloc_nosplit");
	cr_assert(c && c->value == 150 && c->delta == 50);
	cr_assert_not(report_hvo(&r, &pages, &saved), "HVO not counted");
	/* Steps from 0 at the window's first batch to the last batch. */
	cr_assert_eq(r.tao.nseries, 3);
	cr_assert_eq(r.tao.series[0].t_ms, 2000);
	cr_assert_eq(r.tao.series[0].shattered, 0);
	cr_assert_eq(r.tao.series[1].t_ms, 3000);
	cr_assert_eq(r.tao.series[1].shattered, 4);
	cr_assert_eq(r.tao.series[1].failed, 1);
	cr_assert_eq(r.tao.series[2].t_ms, 4000);
	cr_assert_eq(r.tao.series[2].shattered, 4);
	report_free(&r);
	free(m);
	cgroup_table_free(&t);
}

Test(history, hvo_saving_where_counted_and_nothing_on_stock)
{
	struct history *h = open_h();
	struct cgroup_table t;
	struct machine_stats *m = calloc(1, sizeof(*m));
	struct report r;
	uint64_t pages, saved;

	cgroup_table_init(&t, 4);
	set_cg(&t, 10, "/a", 1, 0, 100, 50);
	m->nzones = 1;
	m->zones[0] = (struct zone_stat){.name = "Normal", .managed_pages = 10, .order = -1};
	history_record(h, &t, 1000, m, NULL, NULL); /* stock: no TAO counter */
	history_close(h);
	load(&r, 0, 10000, NULL);
	cr_assert_eq(r.tao.ncounters, 0);
	cr_assert_eq(r.tao.nseries, 0);
	cr_assert_eq(r.zones[0].order, -1, "a stock zone has no order");
	report_free(&r);

	h = open_h();
	m->tao_present = 1u << TVM_HVO;
	m->tao[TVM_HVO] = 512;
	history_record(h, &t, 2000, m, NULL, NULL);
	history_close(h);
	load(&r, 0, 10000, NULL);
	cr_assert(report_hvo(&r, &pages, &saved));
	cr_assert_eq(pages, 512);
	cr_assert_eq(saved, 512 * (28 << 10), "28 KiB of vmemmap per 2 MiB THP");
	report_free(&r);
	free(m);
	cgroup_table_free(&t);
}

Test(history, shatter_counts_of_the_audit_record)
{
	struct history *h = open_h();
	struct cgroup_table t;
	struct action_record a = {.time_ms = 1500, .result = RESULT_DONE};
	struct report r;
	const struct report_cgroup *c;
	struct report_shatter_sum s;

	cgroup_table_init(&t, 4);
	set_cg(&t, 10, "/a", 1, 1, 100, 50);
	history_record(h, &t, 1000, NULL, NULL, NULL);
	a.req = (struct action_request){.kind = ACTION_SHATTER, .cgroup_id = 10, .cgroup = "/a"};
	a.shatter = (struct shatter_counts){true, 4, 1, 2, 3};
	cr_assert_eq(history_record_action(h, &a), 0);
	a.time_ms = 1600;
	a.shatter = (struct shatter_counts){true, 1, 0, 0, 0};
	cr_assert_eq(history_record_action(h, &a), 0);
	a.time_ms = 1700;
	a.shatter = (struct shatter_counts){0}; /* stock: not counted */
	cr_assert_eq(history_record_action(h, &a), 0);
	history_close(h);
	cr_assert_eq(query_int("SELECT count(*) FROM actions WHERE shattered IS NULL"), 1);
	load(&r, 0, 10000, NULL);
	c = find(&r, "/a", 0);
	cr_assert_eq(c->nactions, 3);
	cr_assert(c->actions[0].shatter_counted);
	cr_assert_eq(c->actions[0].shattered, 4);
	cr_assert_eq(c->actions[0].shatter_failed, 1);
	cr_assert_eq(c->actions[0].shatter_discarded, 2);
	cr_assert_eq(c->actions[0].shatter_split, 3);
	cr_assert_not(c->actions[2].shatter_counted);
	s = report_cgroup_shatter(c);
	cr_assert_eq(s.actions, 2, "the uncounted record adds nothing");
	cr_assert_eq(s.shattered, 5);
	cr_assert_eq(s.discarded, 2);
	report_free(&r);
	cgroup_table_free(&t);
}

/* A database @name of schema @version holding cgroup /old (id 10) with one
 * sample, and @more SQL. */
static void old_database(const char *name, int version, const char *more)
{
	char err[256], sql[1024];
	sqlite3 *db;

	snprintf(db_path, sizeof(db_path), "%s/%s", dir, name);
	cr_assert_eq(sqlite3_open(db_path, &db), SQLITE_OK);
	cr_assert_eq(history_schema_apply_to(db, version, err, sizeof(err)), 0, "%s", err);
	snprintf(
	    sql, sizeof(sql),
	    "INSERT INTO cgroups VALUES(1, '/old', 10, 1000, 1000, NULL);"
	    "INSERT INTO samples VALUES(1, 1000, 1, 0, 100, 50, 50.0, 3, 1, 0, 3, 1, 0, NULL);%s",
	    more);
	cr_assert_eq(sqlite3_exec(db, sql, NULL, NULL, NULL), SQLITE_OK, "%s", sqlite3_errmsg(db));
	sqlite3_close(db);
}

/* A database of schema version 1 (before TAO counts) is read as it is, then migrated. */
Test(history, version_1_database_is_read_then_migrated)
{
	struct cgroup_table t;
	struct history *h;
	struct report r;

	old_database("v1.db", 1,
		     "INSERT INTO zone_samples VALUES(1000, 0, 'Normal', 10, 10, 5, '1 2');"
		     "INSERT INTO actions(t_ms, cg, cgroup, cgroup_id, kind, result)"
		     " VALUES(1000, 1, '/old', 10, 'shatter', 'done');");
	cr_assert_eq(query_int("PRAGMA user_version"), 1);

	load(&r, 0, 10000, NULL); /* read-only: no migration, no error */
	cr_assert_eq(r.nzones, 1);
	cr_assert_eq(r.zones[0].order, -1);
	cr_assert_eq(r.tao.ncounters, 0);
	cr_assert_eq(r.cgroups[0].nactions, 1);
	cr_assert_not(r.cgroups[0].actions[0].shatter_counted);
	report_free(&r);

	h = open_h(); /* taod migrates it and goes on writing */
	cgroup_table_init(&t, 4);
	set_cg(&t, 10, "/old", 5, 1, 100, 50);
	cr_assert_eq(history_record(h, &t, 2000, NULL, NULL, NULL), 0);
	history_close(h);
	cr_assert_eq(query_int("PRAGMA user_version"), HISTORY_SCHEMA_VERSION);
	load(&r, 0, 10000, NULL);
	cr_assert_eq(r.ncgroups, 1, "the old row continued");
	cr_assert_eq(r.cgroups[0].samples, 2);
	cr_assert_eq(r.cgroups[0].nactions, 1);
	cr_assert_eq(r.zones[0].order, -1);
	report_free(&r);
	cgroup_table_free(&t);
}

/* A SQLite file taod did not make (tables, no user_version; or a schema
 * from the future) is refused before anything of it changes, its mode too. */
Test(history, foreign_database_refused_untouched)
{
	static const char *const sql[] = {"CREATE TABLE mine(x)", "PRAGMA user_version = 99"};
	struct history *h = NULL;
	struct stat st;
	char err[256] = "", sub[96];

	snprintf(sub, sizeof(sub), "%s/sub", dir);
	cr_assert_eq(mkdir(sub, 0700), 0);
	for (size_t i = 0; i < 2; i++) {
		sqlite3 *db;

		unlink(db_path);
		cr_assert_eq(sqlite3_open(db_path, &db), SQLITE_OK);
		cr_assert_eq(sqlite3_exec(db, sql[i], NULL, NULL, NULL), SQLITE_OK);
		sqlite3_close(db);
		cr_assert_eq(chmod(db_path, 0644), 0);
		cr_assert_eq(history_open(&h, db_path, err, sizeof(err)), -EPERM, "%s", err);
		cr_assert_null(h);
		cr_assert(strstr(err, "a SQLite database taod did not make"), "%s", err);
		cr_assert_eq(stat(db_path, &st), 0);
		cr_assert_eq(st.st_mode & 0777, 0644);
	}
}

/* Per-size counts (schema 3): a row when a size's counts moved, summed over
 * the report's window, in each format. */
Test(history, sizes_recorded_when_they_move_and_reported)
{
	struct cgroup_table t;
	struct history *h = open_h();
	const struct report_cgroup *c;
	struct cgroup_entry *e;
	struct report r;
	char *text = NULL;
	size_t len = 0;
	FILE *f;

	cgroup_table_init(&t, 4);
	set_cg(&t, 10, "/m", 0, 0, 100, 0);
	e = cgroup_table_find(&t, 10);
	e->sizes.fault_alloc[4] = 32;
	e->sizes.partial[4] = 8;
	cr_assert_eq(history_record(h, &t, 1000, NULL, NULL, NULL), 0);
	cr_assert_eq(history_record(h, &t, 2000, NULL, NULL, NULL), 0); /* nothing moved */
	e->sizes.split[4] = 4;
	e->sizes.fault_alloc[2] = 3;
	cr_assert_eq(history_record(h, &t, 3000, NULL, NULL, NULL), 0);
	history_close(h);
	cr_assert_eq(query_int("SELECT count(*) FROM size_samples"), 3);

	load(&r, 0, 10000, NULL);
	c = find(&r, "/m", 0);
	cr_assert_not_null(c);
	cr_assert_eq(c->nsizes, 2);
	cr_assert_eq(c->sizes[0].size_kb, 16);
	cr_assert_eq(c->sizes[0].count[SIZE_IDX_fault_alloc], 3);
	cr_assert_eq(c->sizes[1].size_kb, 64);
	cr_assert_eq(c->sizes[1].count[SIZE_IDX_fault_alloc], 32);
	cr_assert_eq(c->sizes[1].count[SIZE_IDX_partial], 8);
	cr_assert_eq(c->sizes[1].count[SIZE_IDX_split], 4);
	f = open_memstream(&text, &len);
	cr_assert_eq(report_write_sizes_csv(f, &r), 0);
	cr_assert_eq(report_write_table(f, &r), 0);
	fclose(f);
	cr_assert(strstr(text, "/m,10,64,32,8,4,0,0,0.00\r\n"), "%s", text);
	cr_assert(
	    strstr(
		text,
		"  /m  64 KiB: 32 faulted, 8 partial, 4 split, 0 collapsed (37.5% broken), 0 KiB "
		"held (0.0% of anon)\n"),
	    "%s", text);
	free(text);
	report_free(&r);

	load(&r, 2500, 10000, NULL); /* the window: only the last batch's moves */
	c = find(&r, "/m", 0);
	cr_assert_eq(c->nsizes, 2);
	cr_assert_eq(c->sizes[1].count[SIZE_IDX_fault_alloc], 0);
	cr_assert_eq(c->sizes[1].count[SIZE_IDX_split], 4);
	report_free(&r);
	cgroup_table_free(&t);
}

/* Bytes held per size: a row when only they move, and the report shows
 * each size's last figure up to the window's end, from a row before the
 * window too (nothing moved since), with its coverage of anon memory. */
Test(history, held_bytes_recorded_when_they_move_and_reported_at_window_end)
{
	struct cgroup_table t;
	struct history *h = open_h();
	const struct report_cgroup *c;
	struct cgroup_entry *e;
	struct report r;
	char *text = NULL;
	size_t len = 0;
	FILE *f;

	cgroup_table_init(&t, 4);
	set_cg(&t, 10, "/m", 0, 0, 4 << 20, 0);
	e = cgroup_table_find(&t, 10);
	e->sizes.nr_anon[4] = 16; /* 1 MiB of 64 KiB folios: 25% of 4 MiB anon */
	cr_assert_eq(history_record(h, &t, 1000, NULL, NULL, NULL), 0);
	cr_assert_eq(history_record(h, &t, 2000, NULL, NULL, NULL), 0); /* nothing moved */
	e->sizes.nr_anon[4] = 32;
	cr_assert_eq(history_record(h, &t, 3000, NULL, NULL, NULL), 0);
	cr_assert_eq(history_record(h, &t, 6000, NULL, NULL, NULL), 0); /* nothing moved */
	history_close(h);
	cr_assert_eq(query_int("SELECT count(*) FROM size_samples"), 2);

	load(&r, 0, 2500, NULL); /* ends before the second row */
	c = find(&r, "/m", 0);
	cr_assert_eq(c->nsizes, 1);
	cr_assert_eq(c->sizes[0].mapped_bytes, 1 << 20);
	cr_assert_float_eq(c->sizes[0].coverage_pct, 25.0, 0.01);
	report_free(&r);

	load(&r, 5000, 10000, NULL); /* nothing moved in it: the held figure still shows */
	c = find(&r, "/m", 0);
	cr_assert_not_null(c);
	cr_assert_eq(c->nsizes, 1);
	cr_assert_eq(c->sizes[0].count[SIZE_IDX_fault_alloc], 0);
	cr_assert_eq(c->sizes[0].mapped_bytes, 2 << 20);
	cr_assert_float_eq(c->sizes[0].coverage_pct, 50.0, 0.01);
	f = open_memstream(&text, &len);
	cr_assert_eq(report_write_sizes_csv(f, &r), 0);
	r.all = true; /* idle in the window: the page shows it with --all */
	report_write_html(f, &r);
	fclose(f);
	cr_assert(strstr(text, "/m,10,64,0,0,0,0,2097152,50.00\r\n"), "%s", text);
	cr_assert(strstr(text, "<td>2048 KiB</td>"), "%s", text);
	free(text);
	report_free(&r);
	cgroup_table_free(&t);
}

/* A version 3 database (per-size counts, no held bytes) is read with the
 * held bytes unknown, then migrated. */
Test(history, version_3_database_has_no_held_bytes_then_migrates)
{
	struct cgroup_table t;
	struct history *h;
	struct report r;

	old_database("v3.db", 3, "INSERT INTO size_samples VALUES(1, 1000, 64, 5, 1, 0);");

	load(&r, 0, 10000, NULL); /* read-only: no migration, no error */
	cr_assert_eq(r.cgroups[0].nsizes, 1);
	cr_assert_eq(r.cgroups[0].sizes[0].count[SIZE_IDX_fault_alloc], 5);
	cr_assert_eq(r.cgroups[0].sizes[0].mapped_bytes, -1);
	cr_assert_eq(r.cgroups[0].sizes[0].coverage_pct, -1);
	report_free(&r);
	cr_assert_eq(query_int("PRAGMA user_version"), 3);

	h = open_h();
	cgroup_table_init(&t, 4);
	set_cg(&t, 10, "/old", 5, 1, 100, 50);
	cgroup_table_find(&t, 10)->sizes.nr_anon[4] = 1;
	cr_assert_eq(history_record(h, &t, 2000, NULL, NULL, NULL), 0);
	history_close(h);
	cr_assert_eq(query_int("PRAGMA user_version"), HISTORY_SCHEMA_VERSION);
	load(&r, 0, 10000, NULL);
	cr_assert_eq(r.cgroups[0].nsizes, 1);
	cr_assert_eq(r.cgroups[0].sizes[0].count[SIZE_IDX_fault_alloc], 5,
		     "the old row still counts");
	cr_assert_eq(r.cgroups[0].sizes[0].mapped_bytes, 64 * 1024);
	report_free(&r);
	cgroup_table_free(&t);
}

/* A version 4 database (before collapses per size) is read with the
 * collapses unknown (null, left out of the text), then migrated: from
 * then on they are counted. */
Test(history, version_4_database_has_no_collapses_then_migrates)
{
	struct cgroup_table t;
	struct history *h;
	struct report r;
	char *text = NULL;
	size_t len = 0;
	FILE *f;

	old_database("v4.db", 4,
		     "INSERT INTO size_samples VALUES(1, 1000, 64, 5, 1, 0, 65536, 1.0);");
	load(&r, 0, 10000, NULL);
	cr_assert_eq(r.cgroups[0].nsizes, 1);
	cr_assert_not(r.cgroups[0].sizes[0].counted[SIZE_IDX_collapse]);
	cr_assert(r.cgroups[0].sizes[0].counted[SIZE_IDX_fault_alloc]);
	f = open_memstream(&text, &len);
	cr_assert_eq(report_write_table(f, &r), 0);
	cr_assert_eq(report_write_sizes_csv(f, &r), 0);
	fclose(f);
	cr_assert(strstr(text, "  /old  64 KiB: 5 faulted, 1 partial, 0 split (20.0% broken)"),
		  "%s", text);
	cr_assert(strstr(text, "/old,10,64,5,1,0,,65536,1.00\r\n"), "%s", text);
	free(text);
	report_free(&r);

	h = open_h();
	cgroup_table_init(&t, 4);
	set_cg(&t, 10, "/old", 5, 1, 100, 50);
	cgroup_table_find(&t, 10)->sizes.collapse[4] = 3;
	cr_assert_eq(history_record(h, &t, 2000, NULL, NULL, NULL), 0);
	history_close(h);
	cr_assert_eq(query_int("PRAGMA user_version"), HISTORY_SCHEMA_VERSION);
	cr_assert_eq(query_int("SELECT d_collapse FROM size_samples WHERE t_ms = 1000"), 0,
		     "an old row: not counted then");
	load(&r, 0, 10000, NULL);
	cr_assert(r.cgroups[0].sizes[0].counted[SIZE_IDX_collapse]);
	cr_assert_eq(r.cgroups[0].sizes[0].count[SIZE_IDX_collapse], 3);
	cr_assert_eq(r.cgroups[0].sizes[0].count[SIZE_IDX_fault_alloc], 5,
		     "the old row still counts");
	cr_assert_float_eq(report_size_broken_pct(&r.cgroups[0].sizes[0]), 12.5, 0.001,
			   "1 broken of 8 made: 5 faulted, 3 collapsed");
	report_free(&r);
	cgroup_table_free(&t);
}

/* A version 2 database (before per-size counts) is read without sizes, then migrated. */
Test(history, version_2_database_has_no_sizes_then_migrates)
{
	struct cgroup_table t;
	struct history *h;
	struct report r;

	old_database("v2.db", 2, "");

	load(&r, 0, 10000, NULL); /* read-only: no migration, no error */
	cr_assert_eq(r.ncgroups, 1);
	cr_assert_eq(r.cgroups[0].nsizes, 0);
	report_free(&r);
	cr_assert_eq(query_int("PRAGMA user_version"), 2);

	h = open_h();
	cgroup_table_init(&t, 4);
	set_cg(&t, 10, "/old", 5, 1, 100, 50);
	cgroup_table_find(&t, 10)->sizes.partial[4] = 2;
	cr_assert_eq(history_record(h, &t, 2000, NULL, NULL, NULL), 0);
	history_close(h);
	cr_assert_eq(query_int("PRAGMA user_version"), HISTORY_SCHEMA_VERSION);
	load(&r, 0, 10000, NULL);
	cr_assert_eq(r.cgroups[0].samples, 2, "the old row continued");
	cr_assert_eq(r.cgroups[0].nsizes, 1);
	cr_assert_eq(r.cgroups[0].sizes[0].count[SIZE_IDX_partial], 2);
	report_free(&r);
	cgroup_table_free(&t);
}

/* The contiguity-pressure state of each batch (schema 6): the report counts
 * the batches per state, the rises, and says where the window ended; the
 * table and JSON show it only where it was recorded. */
Test(history, pressure_states_per_batch_in_the_report)
{
	static const char *const states[] = {"none", "some", "some", "none", "full", "some"};
	struct history *h = open_h();
	struct cgroup_table t;
	struct report r;
	char *text = NULL;
	size_t len;
	FILE *f;

	cgroup_table_init(&t, 4);
	for (int i = 0; i < 6; i++) {
		set_cg(&t, 10, "/a", i, 0, 100, 0);
		cr_assert_eq(history_record(h, &t, 1000 * (i + 1), NULL, NULL, NULL), 0);
		cr_assert_eq(history_record_pressure(h, 1000 * (i + 1), states[i],
						     i == 5 ? "free_pmd_blocks=40.0 (< 64)" : ""),
			     0);
	}
	history_close(h);
	cgroup_table_free(&t);
	cr_assert_eq(query_int("SELECT count(*) FROM pressure_samples WHERE why IS NULL"), 5);
	load(&r, 0, 10000, NULL);
	cr_assert_eq(r.pressure.batches[0], 2);
	cr_assert_eq(r.pressure.batches[1], 3);
	cr_assert_eq(r.pressure.batches[2], 1);
	cr_assert_eq(r.pressure.entered[1], 1);
	cr_assert_eq(r.pressure.entered[2], 1);
	cr_assert_str_eq(r.pressure.last_state, "some");
	f = open_memstream(&text, &len);
	report_write_table(f, &r);
	fclose(f);
	cr_assert(strstr(text, "pressure none 33.3%, some 50.0%, full 16.7% of 6 batches; rose to "
			       "some 1 times, to full 1; last some (free_pmd_blocks=40.0 (< 64))"),
		  "%s", text);
	free(text);
	f = open_memstream(&text, &len);
	report_write_json(f, &r);
	fclose(f);
	cr_assert(strstr(text, "\"contiguity_pressure\""), "%s", text);
	free(text);
	report_free(&r);
}

/* What a split did is kept on every kernel (schema 8): the report has it. */
/* @a recorded after a sample of cgroup /a (id 10), and the report (*@r)
 * read back: its first action. */
static const struct report_action *report_of_one_action(struct action_record *a, struct report *r)
{
	struct history *h = open_h();
	struct cgroup_table t;

	cgroup_table_init(&t, 4);
	set_cg(&t, 10, "/a", 1, 1, 100, 50);
	history_record(h, &t, 1000, NULL, NULL, NULL);
	cgroup_table_free(&t);
	cr_assert_eq(history_record_action(h, a), 0);
	history_close(h);
	load(r, 0, 10000, NULL);
	return &find(r, "/a", 0)->actions[0];
}

Test(history, split_tally_of_the_audit_record)
{
	struct action_record a = {.time_ms = 1500, .result = RESULT_DONE};
	struct report r;
	const struct report_action *x;

	a.req = (struct action_request){.kind = ACTION_SHATTER, .cgroup_id = 10, .cgroup = "/a"};
	a.shatter = (struct shatter_counts){.split_counted = true,
					    .bytes_split = 256 << 20,
					    .thps_split = 128,
					    .partial_thps = 32,
					    .pages_migrated = 7};
	x = report_of_one_action(&a, &r);
	cr_assert(x->split_counted);
	cr_assert_eq(x->split_bytes, 256 << 20);
	cr_assert_eq(x->split_thps, 128);
	cr_assert_eq(x->split_partial, 32);
	cr_assert_eq(x->pages_migrated, 7);
	report_free(&r);
}
