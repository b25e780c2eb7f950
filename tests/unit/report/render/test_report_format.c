// SPDX-License-Identifier: GPL-2.0
/* Report renderings: CSV quoting, JSON fields, HTML escaping and charts. */
#include <criterion/criterion.h>
#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report/report.h"

typedef int (*writer_fn)(FILE *, const struct report *);

static char *render(writer_fn w, const struct report *r)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	cr_assert_eq(w(f, r), 0);
	fclose(f);
	return buf;
}

static struct report_action shatter = {
    .t_ms = 1500, .kind = "shatter", .result = "done", .detail = "wrote max"};
static struct report_class_change to_abuser = {.t_ms = 1200, .from = "", .to = "abuser"};

/* Two cgroups: one with an awkward path and known figures, one unknown. */
static void sample_report(struct report *r, struct report_cgroup c[2], char *odd)
{
	memset(r, 0, sizeof(*r));
	memset(c, 0, 2 * sizeof(*c));
	snprintf(r->db, sizeof(r->db), "/tmp/x.db");
	c[0] = (struct report_cgroup){.path = odd,
				      .cgroup_id = 42,
				      .samples = 3,
				      .coverage_now = 50,
				      .coverage_min = 25,
				      .coverage_mean = 40,
				      .coverage_max = 60,
				      .anon_bytes = 4 << 20,
				      .thp_bytes = 2 << 20,
				      .thp_alloc = 8,
				      .counts[CG_IDX_pmd_split] = 2,
				      .class = "abuser",
				      .actions = &shatter,
				      .nactions = 1,
				      .changes = &to_abuser,
				      .nchanges = 1};
	c[1] = (struct report_cgroup){.path = "/plain",
				      .cgroup_id = 7,
				      .coverage_now = -1,
				      .coverage_min = -1,
				      .coverage_mean = -1,
				      .coverage_max = -1,
				      .anon_bytes = -1,
				      .thp_bytes = -1};
	r->cgroups = c;
	r->ncgroups = 2;
	r->all = true; /* rendering, not selection (test_report_order.c): every row */
}

Test(report_format, csv_quotes_what_needs_it)
{
	struct report r;
	struct report_cgroup c[2];
	char odd[] = "/a,b \"q\"\nx";
	char *out;

	sample_report(&r, c, odd);
	out = render(report_write_csv, &r);
	cr_assert(strstr(out, "\"/a,b \"\"q\"\"\nx\",42,"), "%s", out);
	cr_assert(strstr(out, "\r\n/plain,7,0,0,,0,,,,,,,0,0,0,0.0000,0,0,,,,,,,\r\n"), "%s", out);
	cr_assert(strstr(out, ",abuser,3,50.00,25.00,40.00,60.00,4194304,2097152,8,2,0,0.2500,1,1"),
		  "%s", out);
	free(out);
}

Test(report_format, json_has_nulls_for_unknown)
{
	struct report r;
	struct report_cgroup c[2];
	char odd[] = "/a\"b";
	struct json_object *o, *cgs, *a, *b, *v;
	char *out;

	sample_report(&r, c, odd);
	out = render(report_write_json, &r);
	o = json_tokener_parse(out);
	cr_assert_not_null(o, "%s", out);
	cr_assert(json_object_object_get_ex(o, "cgroups", &cgs));
	a = json_object_array_get_idx(cgs, 0);
	b = json_object_array_get_idx(cgs, 1);
	json_object_object_get_ex(a, "path", &v);
	cr_assert_str_eq(json_object_get_string(v), "/a\"b");
	json_object_object_get_ex(a, "split_ratio", &v);
	cr_assert_float_eq(json_object_get_double(v), 0.25, 1e-9);
	json_object_object_get_ex(a, "actions", &v);
	cr_assert_eq(json_object_array_length(v), 1);
	cr_assert(json_object_object_get_ex(b, "coverage_now_pct", &v));
	cr_assert_null(v);
	cr_assert(json_object_object_get_ex(b, "anon_bytes", &v));
	cr_assert_null(v);
	json_object_put(o);
	free(out);
}

Test(report_format, html_escapes_and_charts_each_cgroup)
{
	struct report r;
	struct report_cgroup c[2];
	struct report_point pts[3] = {{1000, 10, 0}, {2000, 50, 2}, {3000, -1, 1}};
	char odd[] = "/x<script>&\"";
	char *out, *sec;

	sample_report(&r, c, odd);
	c[0].points = pts;
	c[0].npoints = 3;
	out = render(report_write_html, &r);
	cr_assert_null(strstr(out, "<script>"), "path must be escaped");
	cr_assert_null(strstr(out, "src="), "nothing fetched");
	cr_assert_null(strstr(out, "href=\"http"), "nothing linked");
	sec = strstr(
	    out,
	    "<section class=\"cgroup\" id=\"cg0\" data-cgroup=\"/x&lt;script&gt;&amp;&quot;\"");
	cr_assert_not_null(sec, "%s", out);
	cr_assert_not_null(strstr(sec, "<svg"));
	cr_assert_not_null(strstr(sec, "data-points=\"3\""));
	cr_assert_not_null(strstr(sec, "class=\"action\" data-kind=\"shatter\""));
	cr_assert_not_null(strstr(sec, "class=\"class-change\""));
	cr_assert_not_null(strstr(out, "data-cgroup=\"/plain\""));
	free(out);
}

Test(report_format, long_series_are_bucketed)
{
	struct report_cgroup c = {.path = "/big", .npoints = 10000};
	char *buf = NULL, *line;
	size_t len = 0, pairs = 0;
	FILE *f = open_memstream(&buf, &len);

	c.points = calloc(c.npoints, sizeof(*c.points));
	for (size_t i = 0; i < c.npoints; i++)
		c.points[i] = (struct report_point){(int64_t)i * 1000, (double)(i % 100), 1};
	svg_chart(f, &(struct report){.until_ms = 10000000}, &c);
	fclose(f);
	line = strstr(buf, "class=\"coverage\"");
	cr_assert_not_null(line);
	for (char *p = strstr(line, "points=\""); *p && *p != '/'; p++)
		pairs += *p == ',';
	cr_assert_leq(pairs, 240);
	cr_assert_geq(pairs, 200);
	free(c.points);
	free(buf);
}

/* A path longer than any fixed column still leaves the columns aligned. */
Test(report_format, table_columns_align_with_long_paths)
{
	struct report r;
	struct report_cgroup c[2];
	char odd[] = "/kubepods.slice/kubepods-burstable.slice/pod-0123456789abcdef/container-x";
	char *text, *lines[4] = {0}, *save = NULL;
	int n = 0;

	sample_report(&r, c, odd);
	text = render(report_write_table, &r);
	for (char *l = strtok_r(text, "\n", &save); l; l = strtok_r(NULL, "\n", &save))
		if (strstr(l, "CGROUP") == l || strstr(l, "/kubepods") == l ||
		    strstr(l, "/plain") == l)
			lines[n++] = l;
	cr_assert_eq(n, 3, "%s", text);
	/* CLASS starts in the same column in the header and both rows. */
	cr_assert_eq(strstr(lines[0], "CLASS") - lines[0], strstr(lines[1], "abuser") - lines[1]);
	cr_assert_eq(strstr(lines[0], "CLASS") - lines[0], strstr(lines[2], " -") + 1 - lines[2]);
	free(text);
}

/* A reward whose last collapse collapsed nothing is named, with why; a done one is not. */
Test(report_format, table_names_rewards_that_collapsed_nothing)
{
	struct report r;
	struct report_cgroup c[2];
	struct report_action acts[2] = {
	    {.t_ms = 1000, .kind = "collapse", .result = "done", .detail = "collapsed 4194304"},
	    {.t_ms = 2000,
	     .kind = "collapse",
	     .result = "not-possible",
	     .detail = "no free 2 MiB blocks: the guarantee cannot be met now"}};
	char odd[] = "/odd";
	char *text;

	sample_report(&r, c, odd);
	c[1].actions = acts;
	c[1].nactions = 2;
	text = render(report_write_table, &r);
	cr_assert(strstr(text, "\n  /plain  not-possible at 1970-01-01 00:00:02Z: no free 2 MiB "
			       "blocks: the guarantee cannot be met now\n"),
		  "%s", text);
	cr_assert_null(strstr(text, "  /odd  "), "%s", text);
	free(text);

	/* The last collapse did collapse: the guarantee is being met. */
	acts[0].t_ms = 3000;
	c[1].actions = &acts[1];
	c[1].nactions = 1;
	acts[1] = acts[0];
	text = render(report_write_table, &r);
	cr_assert_null(strstr(text, "collapsed nothing"), "%s", text);
	free(text);
}

/* A name's control characters are \xNN in the table (they would drive the
 * terminal), its bytes kept inside quotes in the CSV (data, as JSON is). */
Test(report_format, control_characters_escaped_in_the_table_kept_in_csv)
{
	struct report r;
	struct report_cgroup c[2];
	char odd[] = "/t\tx\x1b[2J";
	char *text, *header, *row;

	sample_report(&r, c, odd);
	text = render(report_write_table, &r);
	cr_assert_null(strchr(text, '\x1b'), "%s", text);
	cr_assert_null(strchr(text, '\t'), "%s", text);
	header = strstr(text, "CGROUP");
	row = strstr(text, "/t\\x09x\\x1b[2J ");
	cr_assert(header && row, "%s", text);
	/* The escaped name sets the column's width: CLASS still lines up. */
	cr_assert_eq(strstr(header, "CLASS") - header, strstr(row, "abuser") - row);
	free(text);
	text = render(report_write_csv, &r);
	cr_assert(strstr(text, "\r\n\"/t\tx\x1b[2J\",42,"), "%s", text);
	free(text);
}

/* Concern first: the abuser, then a missed guarantee, then the rest, idle last. */
Test(report_format, html_orders_by_concern_with_guarantee_lines_and_fragmentation)
{
	struct report r;
	struct report_cgroup c[4];
	struct report_frag frag[2] = {{.t_ms = 1000, .blocks = {100, 50, 0, 0, 0, 0, 0, 0, 0, 3}},
				      {.t_ms = 2000, .blocks = {90, 40, 0, 0, 0, 0, 0, 0, 0, 7}}};
	char odd[] = "/z-abuser";
	char *html, *abuser, *missed, *met, *idle;

	sample_report(&r, c, odd); /* c[0] abuser, c[1] "/plain": idle, unknown */
	c[1].guarantee_pct = 0;
	c[2] = (struct report_cgroup){.path = "/a-missed",
				      .coverage_mean = 55,
				      .thp_alloc = 3,
				      .guarantee_pct = 80,
				      .coverage_now = -1,
				      .coverage_min = -1,
				      .coverage_max = -1};
	c[3] = (struct report_cgroup){.path = "/b-met",
				      .coverage_mean = 91,
				      .thp_alloc = 3,
				      .guarantee_pct = 80,
				      .coverage_now = -1,
				      .coverage_min = -1,
				      .coverage_max = -1};
	c[0].guarantee_pct = -1;
	r.ncgroups = 4;
	r.frag = frag;
	r.nfrag = 2;
	r.frag_orders = 10;
	html = render(report_write_html, &r);
	abuser = strstr(html, "<section class=\"cgroup\" id=\"cg0\"");
	missed = strstr(html, "data-cgroup=\"/a-missed\"");
	met = strstr(html, "data-cgroup=\"/b-met\"");
	idle = strstr(html, "data-cgroup=\"/plain\"");
	cr_assert(abuser && missed && met && idle, "%s", html);
	cr_assert(abuser < missed && missed < met && met < idle, "sections out of concern order");
	cr_assert(strstr(html, "guarantee 80% missed by 25.0 points (mean coverage 55.0%)"));
	cr_assert(strstr(html, "guarantee 80% met (mean coverage 91.0%)"));
	cr_assert(strstr(html, "coverage guarantee unknown"));
	cr_assert(strstr(html, "<svg class=\"fragmentation\""));
	cr_assert(strstr(html, "data-order=\"9\""));
	cr_assert(strstr(html, "order 9: 7 free blocks at the end"));
	free(html);
}

/* A boot-zone TAO kernel's report: counters, zones with their order, shatter series. */
static struct report_counter tao_counters[] = {{"pgalloc_nosplit", 150, 50},
					       {"thp_shatter_page", 11, 4},
					       {"thp_shatter_page_failed", 2, 1},
					       {"thp_shatter_page_discarded", 2, 0}};
static struct report_shatter_point tao_series[] = {{1000, 0, 0, 0}, {2000, 4, 1, 0}};
static struct report_zone tao_zones[] = {{.name = "Normal", .managed_pages = 9, .order = -1},
					 {.name = "NoSplit", .managed_pages = 5, .order = 4}};

static void tao_report(struct report *r, struct report_cgroup c[2], struct report_action *a)
{
	static char odd[] = "/x";

	sample_report(r, c, odd);
	*a = (struct report_action){.t_ms = 1500,
				    .kind = "shatter",
				    .result = "done",
				    .shatter_counted = true,
				    .shattered = 4,
				    .shatter_failed = 1,
				    .shatter_discarded = 0,
				    .shatter_split = 2};
	c[0].actions = a;
	r->tao = (struct report_tao){tao_counters, 4, tao_series, 2};
	r->zones = tao_zones;
	r->nzones = 2;
}

Test(report_format, tao_in_the_table_and_csv)
{
	struct report r;
	struct report_cgroup c[2];
	struct report_action a;
	char *out;

	tao_report(&r, c, &a);
	out = render(report_write_table, &r);
	cr_assert(strstr(out, "zone    node 0 NoSplit  order 4, managed 5 pages"), "%s", out);
	cr_assert(strstr(out, "zone    node 0 Normal   managed 9 pages"), "%s", out);
	cr_assert(strstr(out, "tao     thp_shatter_page                   +4 (now 11)\n"), "%s",
		  out);
	cr_assert(strstr(out, "hvo     not counted by this kernel"), "%s", out);
	cr_assert(
	    strstr(out, "  /x  1 shatter(s): shattered 4, failed 1, discarded 0 pages, split 2\n"),
	    "%s", out);
	free(out);
	out = render(report_write_csv, &r);
	cr_assert(strstr(out, ",thp_shattered,thp_shatter_failed,thp_shatter_discarded,"
			      "thp_shatter_split,unit,container,pod\r\n"),
		  "%s", out);
	cr_assert(strstr(out, ",1,1,4,1,0,2,,,\r\n/plain,"), "%s", out);
	free(out);
	/* A stock kernel's report says nothing of TAO. */
	sample_report(&r, c, "/x");
	out = render(report_write_table, &r);
	cr_assert_null(strstr(out, "tao "), "%s", out);
	cr_assert_null(strstr(out, "hvo "), "%s", out);
	free(out);
}

static struct json_object *get(struct json_object *o, const char *path)
{
	char key[64];

	while (o && *path) {
		size_t n = strcspn(path, ".");

		snprintf(key, sizeof(key), "%.*s", (int)n, path);
		if (json_object_get_type(o) == json_type_array)
			o = json_object_array_get_idx(o, (size_t)atoi(key));
		else if (!json_object_object_get_ex(o, key, &o))
			return NULL;
		path += n + (path[n] == '.');
	}
	return o;
}

Test(report_format, tao_in_json)
{
	struct report r;
	struct report_cgroup c[2];
	struct report_action a;
	struct json_object *o;
	char *out;

	tao_report(&r, c, &a);
	out = render(report_write_json, &r);
	o = json_tokener_parse(out);
	cr_assert_not_null(o, "%s", out);
	cr_assert_str_eq(json_object_get_string(get(o, "machine.tao.counters.1.stat")),
			 "thp_shatter_page");
	cr_assert_eq(json_object_get_int(get(o, "machine.tao.counters.1.change")), 4);
	cr_assert_null(get(o, "machine.tao.hvo"), "not counted: null");
	cr_assert_eq(json_object_get_int(get(o, "machine.zones.1.order")), 4);
	cr_assert(json_object_object_get_ex(get(o, "machine.zones.0"), "order", NULL));
	cr_assert_null(get(o, "machine.zones.0.order"));
	cr_assert_eq(json_object_get_int(get(o, "cgroups.0.actions.0.shatter.shattered")), 4);
	cr_assert_eq(json_object_get_int(get(o, "cgroups.0.shatter.split")), 2);
	cr_assert_eq(json_object_get_int(get(o, "cgroups.0.shatter.actions")), 1);
	cr_assert(json_object_object_get_ex(get(o, "cgroups.1"), "shatter", NULL));
	cr_assert_null(get(o, "cgroups.1.shatter"));
	json_object_put(o);
	free(out);
	/* HVO where the kernel counts it: pages and the vmemmap saved. */
	tao_counters[3] = (struct report_counter){"thp_hvo_page", 512, 0};
	out = render(report_write_json, &r);
	o = json_tokener_parse(out);
	cr_assert_eq(json_object_get_int64(get(o, "machine.tao.hvo.saved_bytes")), 512 * 28 * 1024);
	json_object_put(o);
	free(out);
	tao_counters[3] = (struct report_counter){"thp_shatter_page_discarded", 2, 0};
}

Test(report_format, tao_in_html)
{
	struct report r;
	struct report_cgroup c[2];
	struct report_action a;
	char *html, *svg;

	tao_report(&r, c, &a);
	html = render(report_write_html, &r);
	cr_assert(strstr(html, "<section class=\"tao\">"), "%s", html);
	cr_assert(strstr(html, "<tr><td>thp_shatter_page</td><td>+4</td><td>11</td></tr>"), "%s",
		  html);
	cr_assert(strstr(html, "<tr><td>node 0 NoSplit</td><td>4</td>"), "%s", html);
	cr_assert(strstr(html, "HVO: not counted by this kernel"), "%s", html);
	svg = strstr(html, "<svg class=\"shatter\"");
	cr_assert(svg && strstr(svg, "data-points=\"2\""), "%s", html);
	cr_assert(strstr(svg, "data-result=\"shattered\""));
	cr_assert(strstr(svg, "4 shattered at the end"));
	cr_assert(strstr(html, "1 shatter(s) the kernel counted: 4 THPs shattered, 1 failed, 0 "
			       "discarded, 2 split."),
		  "%s", html);
	free(html);
}

static char *line_starting(char *text, const char *prefix)
{
	for (char *l = text; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL)
		if (!strncmp(l, prefix, strlen(prefix)))
			return l;
	return NULL;
}

/* Severity first: the abuser, then misusers by split ratio, idle last; each header unique. */
Test(report_format, table_by_severity_with_unique_headers_and_anon)
{
	struct report r;
	struct report_cgroup c[4];
	char odd[] = "/z-abuser";
	char *text, *hdr;

	sample_report(&r, c, odd);
	c[2] = c[1];
	c[2].path = "/b-misuser-low";
	snprintf(c[2].class, sizeof(c[2].class), "misuser");
	c[2].thp_alloc = 10, c[2].counts[CG_IDX_pmd_split] = 1;
	c[3] = c[2];
	c[3].path = "/c-misuser-high";
	c[3].counts[CG_IDX_pmd_split] = 9;
	r.ncgroups = 4;
	text = render(report_write_table, &r);
	hdr = line_starting(text, "CGROUP");
	cr_assert(hdr, "%s", text);
	cr_assert(strstr(hdr,
			 "CLASS       COVER    MIN   MEAN    MAX  ANON MiB   THP MiB   ALLOCS   "
			 "SPLITS  RATIO CLASS CHANGES ACTIONS  WORKLOAD\n"),
		  "%s", text);
	cr_assert(line_starting(text, "/z-abuser") < line_starting(text, "/c-misuser-high"));
	cr_assert(line_starting(text, "/c-misuser-high") < line_starting(text, "/b-misuser-low"));
	cr_assert(line_starting(text, "/b-misuser-low") < line_starting(text, "/plain"), "%s",
		  text);
	/* 4 MiB anon, 2 MiB THP. */
	cr_assert(strstr(line_starting(text, "/z-abuser"), "    4.0       2.0 "), "%s", text);
	cr_assert_null(strstr(text, "gone"), "nothing is gone: %s", text);
	free(text);

	r.last_sample_ms = 5000; /* /plain was last seen before the last batch */
	c[0].last_seen_ms = c[2].last_seen_ms = c[3].last_seen_ms = 5000;
	text = render(report_write_table, &r);
	cr_assert(strstr(line_starting(text, "/plain"), "* -"), "%s", text);
	cr_assert(strstr(text, "(* gone: not seen in the last batch)"), "%s", text);
	free(text);
}

/* Ill-formed UTF-8 in a name: U+FFFD in HTML and CSV, as in JSON. */
Test(report_format, html_and_csv_clean_utf8_as_json_does)
{
	struct report r;
	struct report_cgroup c[2];
	char odd[] = "/bad\xff\xc3(name";
	char *out;

	sample_report(&r, c, odd);
	out = render(report_write_csv, &r);
	cr_assert(strstr(out, "\r\n/bad\xef\xbf\xbd\xef\xbf\xbd(name,42,"), "%s", out);
	free(out);
	out = render(report_write_html, &r);
	cr_assert_null(strstr(out, "\xff"), "%s", out);
	cr_assert(strstr(out, "data-cgroup=\"/bad\xef\xbf\xbd\xef\xbf\xbd(name\""), "%s", out);
	cr_assert(strstr(out, "<th>anon MiB</th>"), "%s", out);
	cr_assert(strstr(out, "<td>4.0</td><td>2.0</td>"), "%s", out);
	free(out);
	out = render(report_write_json, &r);
	cr_assert(strstr(out, "\"/bad\xef\xbf\xbd\xef\xbf\xbd(name\""), "%s", out);
	free(out);
}

/* 9.9, not 9.9000000000000004; free blocks by order as numbers. */
Test(report_format, json_numbers_are_numbers_with_sane_precision)
{
	struct report r;
	struct report_cgroup c[2];
	struct report_zone z = {.name = "Normal", .managed_pages = 9, .free_blocks = "12 3 0 1"};
	char odd[] = "/x";
	struct json_object *o, *m, *zones, *fb;
	char *out;

	sample_report(&r, c, odd);
	c[0].coverage_now = 9.9;
	c[0].coverage_max = 500.0 / 12; /* needs all its digits to read back */
	c[0].coverage_mean = 100.0 / 3;
	r.zones = &z;
	r.nzones = 1;
	out = render(report_write_json, &r);
	cr_assert(strstr(out, "\"coverage_now_pct\":9.9,"), "%s", out);
	cr_assert(strstr(out, "\"coverage_mean_pct\":33.333333333333336,"), "%s", out);
	cr_assert(strstr(out, "\"split_ratio\":0.25,"), "%s", out);
	cr_assert(strstr(out, "\"coverage_min_pct\":25.0,"), "%s", out);
	o = json_tokener_parse(out);
	cr_assert(json_object_object_get_ex(
	    json_object_array_get_idx(json_object_object_get(o, "cgroups"), 0), "coverage_max_pct",
	    &m));
	cr_assert(json_object_get_double(m) == 500.0 / 12, "%s", out);
	cr_assert(json_object_object_get_ex(o, "machine", &m));
	cr_assert(json_object_object_get_ex(m, "zones", &zones));
	cr_assert(json_object_object_get_ex(json_object_array_get_idx(zones, 0),
					    "free_blocks_by_order", &fb));
	cr_assert(json_object_is_type(fb, json_type_array), "%s", out);
	cr_assert_eq(json_object_array_length(fb), 4);
	cr_assert_eq(json_object_get_int64(json_object_array_get_idx(fb, 0)), 12);
	cr_assert_eq(json_object_get_int64(json_object_array_get_idx(fb, 3)), 1);
	json_object_put(o);
	free(out);
}

static size_t count(const char *hay, const char *needle)
{
	size_t n = 0;

	for (const char *p = hay; (p = strstr(p, needle)); p++)
		n++;
	return n;
}

/* taod down for a minute between batches a second apart: a gap in each line, not a slope. */
Test(report_format, chart_breaks_its_lines_where_taod_was_down)
{
	struct report_cgroup c = {.path = "/g"};
	struct report_point pts[7] = {{1000, 10, 1},   {2000, 20, 1},	{3000, 30, 1},
				      {603000, 40, 1}, {604000, 50, 1}, {605200, 60, 1},
				      {606200, 60, 1}}; /* 10 minutes without a batch */
	int64_t starts[] = {605500};			/* restarted within a second */
	struct report r = {.until_ms = 610000};
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	c.points = pts;
	c.npoints = 7;
	svg_chart(f, &r, &c);
	fclose(f);
	cr_assert_eq(count(buf, "class=\"coverage\""), 2, "%s", buf);
	cr_assert_eq(count(buf, "class=\"split-rate\""), 2, "%s", buf);
	free(buf);
	buf = NULL;
	f = open_memstream(&buf, &len);
	r.run_starts = starts;
	r.nruns = 1;
	svg_chart(f, &r, &c);
	fclose(f);
	cr_assert_eq(count(buf, "class=\"coverage\""), 3, "%s", buf);
	free(buf);
}

/* Late ticks on a busy machine (many steps, half a minute) are no gap. */
Test(report_format, chart_keeps_its_lines_through_late_ticks)
{
	struct report_cgroup c = {.path = "/g"};
	struct report_point pts[6] = {{1000, 10, 1}, {1200, 20, 1}, {1400, 30, 1},
				      {2600, 40, 1}, {2800, 50, 1}, {30000, 50, 1}};
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	c.points = pts;
	c.npoints = 6;
	svg_chart(f, &(struct report){.until_ms = 31000}, &c);
	fclose(f);
	cr_assert_eq(count(buf, "class=\"coverage\""), 1, "%s", buf);
	free(buf);
}
/* A crafted database's texts (class, zone, stat, result) reach the terminal escaped too. */
Test(report_format, table_escapes_every_text_of_the_database)
{
	struct report r;
	struct report_cgroup c[2];
	struct report_zone z = {
	    .name = "N\x1b]0;x\x07", .managed_pages = 9, .free_blocks = "1\x1b"};
	struct report_mthp m = {.size_kb = 64, .stat = "s\x9b", .delta = 1};
	struct report_action col = {
	    .t_ms = 1, .kind = "collapse", .result = "r\x1b", .detail = "d"};
	char odd[] = "/x", *text;

	sample_report(&r, c, odd);
	snprintf(c[1].class, sizeof(c[1].class), "\x1b[2Jgood");
	c[1].actions = &col;
	c[1].nactions = 1;
	r.zones = &z;
	r.nzones = 1;
	r.mthp = &m;
	r.nmthp = 1;
	snprintf(r.db, sizeof(r.db), "/tmp/\x1b.db");
	text = render(report_write_table, &r);
	cr_assert_null(strchr(text, '\x1b'), "%s", text);
	cr_assert_null(strchr(text, '\x07'), "%s", text);
	cr_assert_null(strchr(text, '\x9b'), "%s", text);
	cr_assert(strstr(text, "\\x1b[2Jgood"), "%s", text);
	free(text);
}
