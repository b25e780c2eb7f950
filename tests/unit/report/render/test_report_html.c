// SPDX-License-Identifier: GPL-2.0
/*
 * The page for people: action marks coloured by result with a legend, time
 * ticks, an action table per cgroup, and bounds that keep a big host's page
 * small (one mark per result and column, capped action rows and charts).
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report/report.h"

static char *page(const struct report *r)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	cr_assert_eq(report_write_html(f, r), 0);
	fclose(f);
	return buf;
}

static size_t count(const char *hay, const char *needle)
{
	size_t n = 0;

	for (const char *p = hay; (p = strstr(p, needle)); p += strlen(needle))
		n++;
	return n;
}

static struct report_point pts[2] = {{0, 50, 0}, {3600 * 1000, 60, 1}};

/* One abuser over an hour with @n actions, of results cycling through @results. */
static void acted(struct report *r, struct report_cgroup *c, struct report_action *a, size_t n,
		  const char *const *results, size_t nresults)
{
	memset(r, 0, sizeof(*r));
	*c = (struct report_cgroup){.path = "/abuser",
				    .class = "abuser",
				    .coverage_now = -1,
				    .coverage_min = -1,
				    .coverage_mean = -1,
				    .coverage_max = -1,
				    .points = pts,
				    .npoints = 2,
				    .actions = a,
				    .nactions = n};
	for (size_t i = 0; i < n; i++) {
		a[i] = (struct report_action){.t_ms = (int64_t)(i * 3600 * 1000 / n)};
		snprintf(a[i].kind, sizeof(a[i].kind), "shatter");
		snprintf(a[i].result, sizeof(a[i].result), "%s", results[i % nresults]);
		snprintf(a[i].detail, sizeof(a[i].detail), "action %zu", i);
	}
	r->cgroups = c;
	r->ncgroups = 1;
	r->until_ms = 3600 * 1000;
}

Test(report_html, marks_coloured_by_result_with_a_legend_and_an_action_table)
{
	static const char *const results[] = {"done", "dry-run", "unsupported", "failed",
					      "rate-limited"};
	struct report_action a[5];
	struct report_cgroup c;
	struct report r;
	char *html;

	acted(&r, &c, a, 5, results, 5);
	html = page(&r);
	cr_assert(strstr(html, "data-result=\"done\" data-count=\"1\""), "%s", html);
	cr_assert(strstr(html, "data-result=\"failed\""), "%s", html);
	cr_assert(strstr(html, "data-result=\"other\""), "rate-limited is not carried out");
	cr_assert(strstr(html, "data-result=\"done\" data-count=\"1\" fill=\"#1e8449\""),
		  "done is green");
	cr_assert(strstr(html, "data-result=\"failed\" data-count=\"1\" fill=\"#e6194b\""),
		  "failed is red");
	for (size_t i = 0; i < 4; i++) {
		char key[96];

		snprintf(key, sizeof(key), "style=\"background:%s\"></i>%s</span>",
			 svg_result_color(results[i]), results[i]);
		cr_assert(strstr(html, key), "legend key %s: %s", results[i], html);
	}
	cr_assert(strstr(html, "<table class=\"actions\">"));
	cr_assert_eq(count(html, "<td class=\"detail\">action "), 5);
	/* An hour: ticks each 10 minutes, HH:MM, and the axes' units. */
	cr_assert(strstr(html, ">00:10</text>"), "%s", html);
	cr_assert(strstr(html, ">THP coverage (%)</text>"));
	cr_assert(strstr(html, ">PMD splits/s</text>"));
	cr_assert(strstr(html, ">time (UTC)</text>"));
	free(html);
}

/* Thousands of actions: a mark per result and column, the last 20 rows listed. */
Test(report_html, many_actions_stay_a_small_page)
{
	static const char *const results[] = {"done", "failed"};
	size_t n = 5000;
	struct report_action *a = calloc(n, sizeof(*a));
	struct report_cgroup c;
	struct report r;
	char *html;

	acted(&r, &c, a, n, results, 2);
	html = page(&r);
	cr_assert_leq(count(html, "<g class=\"action\""), 2 * (900 / 6 + 1));
	cr_assert_eq(count(html, "<td class=\"detail\">action "), 20);
	cr_assert(strstr(html, "<td class=\"detail\">action 4999</td>"), "the latest listed");
	cr_assert(strstr(html, "4980 earlier ones are in"), "%s", html);
	cr_assert_lt(strlen(html), 100 * 1024, "%zu bytes", strlen(html));
	free(html);
	free(a);
}

/* Every cgroup an abuser: at most 50 charts, each still in the summary table. */
Test(report_html, charts_are_capped)
{
	struct report_cgroup c[80];
	char paths[80][16];
	struct report r = {.cgroups = c, .ncgroups = 80};
	char *html;

	for (int i = 0; i < 80; i++) {
		snprintf(paths[i], sizeof(paths[i]), "/a%02d", i);
		c[i] = (struct report_cgroup){.path = paths[i], .class = "abuser"};
	}
	html = page(&r);
	cr_assert_eq(count(html, "<section class=\"cgroup\""), 50);
	cr_assert_eq(count(html, "<tr><td><a"), 80);
	cr_assert(strstr(html, "Charts for the first 50 cgroups only"));
	free(html);
}
