// SPDX-License-Identifier: GPL-2.0
/*
 * Every rendering of the per-size events (multi-size THP, issue 17) of one
 * set of counts, byte for byte: the metric family, a `cgroups` row's and a
 * size mix's JSON, the history's rows and `taoctl report` in each format.
 * data/golden-sizes.txt was written by the code before the per-size events
 * became one list (TAOD_SIZE_EVENTS); a new event adds its figures to it,
 * nothing else in it changes. Regenerate (TAOD_GOLDEN_WRITE=1) only for a
 * change meant to alter these outputs.
 */
#include <criterion/criterion.h>
#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report/history/history.h"
#include "report/metrics/metrics.h"
#include "report/report.h"
#include "report/render/report_sizes.h"
#include "taod/protocol.h"

#include "../../support/scratch.h"

#define GOLDEN "unit/report/data/golden-sizes.txt"

static char dir[SCRATCH_DIR_MAX], db_path[128];

static void make_tmp(void)
{
	scratch_make(dir, "sizes");
	snprintf(db_path, sizeof(db_path), "%s/history.db", dir);
}

static void remove_tmp(void)
{
	cr_assert_eq(scratch_remove(dir), 0);
}

TestSuite(sizes_golden, .init = make_tmp, .fini = remove_tmp);

/* Every per-size event of every order, each a figure of its own. */
static void fill(struct taod_cg_sizes *s, uint64_t base)
{
	uint64_t *v = (uint64_t *)s;
	size_t events = offsetof(struct taod_cg_sizes, nr_anon) / sizeof(uint64_t);

	for (size_t k = 0; k < events; k++)
		v[k] = (k % TAOD_MAX_ORDER) >= 2 && (k % TAOD_MAX_ORDER) % 3 != 0 ? base + k : 0;
	s->nr_anon[4] = 16;
	s->nr_anon[5] = 2;
}

/* Two cgroups with folios of several sizes, one with a removed child's folded in. */
static void table(struct cgroup_table *t)
{
	struct taod_cg_counters c = {.thp_fault_alloc = 1};
	struct memstat m = {.anon_bytes = 8 << 20, .thp_bytes = 0, .has_anon = true};
	struct cgroup_entry *e;

	cgroup_table_init(t, 4);
	cgroup_table_set_counters(t, 1, &c, 1);
	e = cgroup_table_touch(t, 1, "/a", 0, 1);
	cgroup_entry_set_memstat(e, &m, true);
	fill(&e->sizes, 100);
	fill(&e->folded_sizes, 1000);
	e->folded_sizes.nr_anon[4] = e->folded_sizes.nr_anon[5] = 0;
	cgroup_table_set_counters(t, 2, &c, 1);
	e = cgroup_table_touch(t, 2, "/b", 0, 1);
	e->sizes.fault_alloc[2] = 7;
}

static void section(FILE *f, const char *name)
{
	fprintf(f, "==== %s\n", name);
}

static void put_json(FILE *f, struct json_object *o)
{
	fprintf(f, "%s\n", json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN));
	json_object_put(o);
}

/* The metric families about sizes, from the first to the end. */
static void metrics_part(FILE *f, const struct cgroup_table *t)
{
	uint64_t stats[TAOD_STAT_MAX] = {0};
	struct metrics_input in = {.bpf_stats = stats, .version = "v1", .cgroups = t};
	char *text = metrics_text(&in), *from, *to;

	cr_assert_not_null(text);
	from = strstr(text, "# HELP taod_cgroup_mthp_folios_total");
	cr_assert_not_null(from, "%s", text);
	to = strstr(from, "# HELP taod_cgroup_mthp_coverage_ratio");
	cr_assert_not_null(to);
	to = strstr(to + 1, "# HELP ");
	fprintf(f, "%.*s", to ? (int)(to - from) : (int)strlen(from), from);
	free(text);
}

static void protocol_part(FILE *f, const struct cgroup_table *t)
{
	const struct cgroup_entry *a = t->v[0]->id == 1 ? t->v[0] : t->v[1];
	struct json_object *row = protocol_cgroup_row(a), *sizes;
	struct taod_task_sizes mix = {0};

	cr_assert(json_object_object_get_ex(row, "sizes", &sizes));
	put_json(f, json_object_get(sizes));
	json_object_put(row);
	memcpy(&mix, &a->sizes, sizeof(mix));
	mix.fault_alloc[9] = 5; /* a PMD-order count is listed like any */
	put_json(f, protocol_size_mix(&mix));
}

static void report_part(FILE *f, const struct cgroup_table *t)
{
	struct report_query q = {.db_path = db_path, .since_ms = 0, .until_ms = 10000};
	struct history *h;
	struct report r;
	char err[256];

	cr_assert_eq(history_open(&h, db_path, err, sizeof(err)), 0, "%s", err);
	cr_assert_eq(history_begin_run(h, 500, "test"), 0);
	cr_assert_eq(history_record(h, t, 1000, NULL, NULL, NULL), 0);
	history_close(h);
	cr_assert_eq(report_load(&q, &r, err, sizeof(err)), 0, "%s", err);
	section(f, "report table");
	report_sizes_table(f, &r);
	section(f, "report csv --sizes");
	cr_assert_eq(report_write_sizes_csv(f, &r), 0);
	for (size_t i = 0; i < r.ncgroups; i++) {
		section(f, r.cgroups[i].path);
		put_json(f, report_sizes_json(&r.cgroups[i]));
		report_sizes_html(f, &r.cgroups[i]);
	}
	report_free(&r);
}

Test(sizes_golden, every_rendering_of_the_per_size_events)
{
	struct cgroup_table t;
	char *out = NULL, *want = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&out, &len);

	table(&t);
	section(f, "metrics");
	metrics_part(f, &t);
	section(f, "protocol");
	protocol_part(f, &t);
	report_part(f, &t);
	fclose(f);
	cgroup_table_free(&t);
	if (getenv("TAOD_GOLDEN_WRITE")) {
		f = fopen(GOLDEN, "w");
		cr_assert_not_null(f, "%s", GOLDEN);
		fputs(out, f);
		fclose(f);
	}
	f = fopen(GOLDEN, "r");
	cr_assert_not_null(f, "%s", GOLDEN);
	len = 0;
	cr_assert_geq(getdelim(&want, &len, '\0', f), 0);
	fclose(f);
	cr_expect_str_eq(out, want, "the per-size renderings differ from " GOLDEN);
	free(want);
	free(out);
}
