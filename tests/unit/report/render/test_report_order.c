// SPDX-License-Identifier: GPL-2.0
/*
 * Which cgroups the table and the page show by default, and in what order:
 * those that need attention, then the busiest; idle and removed ones only
 * with --all (r->all), and the output says how many were left out.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/busiest.h"
#include "report/report.h"

#define N 40

static struct report_cgroup cg[N];
static char paths[N][32];
static struct report_action acted = {.t_ms = 1500, .kind = "shatter", .result = "done"};

/*
 * 0 abuser (idle), 1 misuser, 2 missing its guarantee, 3 acted on and
 * removed, 4 removed and busy, 5..34 busy (traffic 5..34), 35..39 idle.
 */
static void many(struct report *r)
{
	memset(r, 0, sizeof(*r));
	memset(cg, 0, sizeof(cg));
	for (int i = 0; i < N; i++) {
		snprintf(paths[i], sizeof(paths[i]), "/cg%02d", i);
		cg[i] = (struct report_cgroup){.path = paths[i],
					       .last_seen_ms = 2000,
					       .coverage_now = -1,
					       .coverage_min = -1,
					       .coverage_mean = -1,
					       .coverage_max = -1};
		if (i >= 5 && i < 35)
			cg[i].thp_alloc = (uint64_t)i;
	}
	snprintf(cg[0].class, sizeof(cg[0].class), "abuser");
	snprintf(cg[1].class, sizeof(cg[1].class), "misuser");
	cg[2].guarantee_pct = 90, cg[2].coverage_mean = 10;
	cg[3].actions = &acted, cg[3].nactions = 1, cg[3].last_seen_ms = 1000;
	cg[4].thp_alloc = 1000, cg[4].last_seen_ms = 1000;
	r->cgroups = cg;
	r->ncgroups = N;
	r->last_sample_ms = 2000;
}

static bool has(const size_t *order, size_t n, size_t i)
{
	for (size_t k = 0; k < n; k++)
		if (order[k] == i)
			return true;
	return false;
}

Test(report_order, attention_first_then_the_busiest_idle_and_removed_left_out)
{
	struct report r;
	size_t n = 0, *order;

	many(&r);
	order = report_shown(&r, &n);
	cr_assert_not_null(order);
	cr_assert_eq(n, 4 + BUSIEST_SHOWN);
	for (size_t i = 0; i < 4; i++)
		cr_assert_eq(order[i], i, "concern order: %zu at %zu", order[i], i);
	cr_assert_eq(order[4], 34, "the busiest first");
	for (size_t i = 35 - BUSIEST_SHOWN; i < 35; i++)
		cr_assert(has(order, n, i), "busy /cg%02zu shown", i);
	cr_assert(!has(order, n, 4), "removed and unflagged: left out, however busy");
	for (size_t i = 5; i < 35 - BUSIEST_SHOWN; i++)
		cr_assert(!has(order, n, i), "quieter /cg%02zu left out", i);
	for (size_t i = 35; i < N; i++)
		cr_assert(!has(order, n, i), "idle /cg%02zu left out", i);
	free(order);
}

Test(report_order, all_shows_every_one)
{
	struct report r;
	size_t n = 0, *order;

	many(&r);
	r.all = true;
	order = report_shown(&r, &n);
	cr_assert_eq(n, N);
	free(order);
}

static char *table(const struct report *r)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	cr_assert_eq(report_write_table(f, r), 0);
	fclose(f);
	return buf;
}

Test(report_order, the_table_says_how_many_it_left_out)
{
	struct report r;
	char *text, want[128];

	many(&r);
	text = table(&r);
	snprintf(want, sizeof(want), "(%d of %d cgroups left out: ", N - 4 - BUSIEST_SHOWN, N);
	cr_assert(strstr(text, want), "%s", text);
	cr_assert(strstr(text, "(--all shows every one)"), "%s", text);
	cr_assert_null(strstr(text, "/cg39 "), "%s", text);
	free(text);
	r.all = true;
	text = table(&r);
	cr_assert_null(strstr(text, "left out"), "%s", text);
	cr_assert(strstr(text, "/cg39 "), "%s", text);
	free(text);
}
