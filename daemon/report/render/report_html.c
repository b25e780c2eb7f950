// SPDX-License-Identifier: GPL-2.0
/*
 * `taoctl report --format html`: one self-contained page (inline CSS and
 * SVG, no scripts, nothing fetched): what needs attention, the machine,
 * a summary table, and per cgroup a <section class="cgroup"
 * data-cgroup="PATH"> with its chart and its actions. Cgroups come by
 * concern (report_shown): abusers, misusers, missed guarantees, acted on,
 * then the busiest; idle and removed ones only with --all (r->all). A
 * host's thousand cgroups stay a page of a few hundred KB: at most
 * MAX_SECTIONS charts, MAX_ACTION_ROWS rows per action table.
 */
#define _GNU_SOURCE
#include <assert.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "report/report.h"
#include "report_costs_out.h"
#include "common/utf8.h"
#include "common/workload_name.h"
#include "report_sizes.h"

#define MAX_SECTIONS	50
#define MAX_ACTION_ROWS 20

/* Wide tables scroll in their box (.wide), charts shrink: the page never scrolls sideways. */
static const char style[] =
    "body{font:14px sans-serif;margin:2em;color:#1b2631}"
    "table{border-collapse:collapse;margin:1em 0}"
    "td,th{border:1px solid #d5d8dc;padding:2px 8px;text-align:right}"
    "td:first-child,th:first-child{text-align:left;word-break:break-all;min-width:14em;max-width:"
    "30em}"
    "td.detail{text-align:left;word-break:break-all;max-width:40em}"
    ".wide{overflow-x:auto;max-width:100%}svg{max-width:100%;height:auto}"
    "section.cgroup{margin:2em 0;border-top:1px solid #d5d8dc}"
    ".legend{font-size:14px;line-height:1.8}.legend .key{margin-right:1.5em;white-space:nowrap}"
    ".key i{display:inline-block;width:1.4em;height:.5em;margin-right:.4em;"
    "vertical-align:middle;border:1px solid #566573}"
    ".key i.dot{width:.8em;height:.8em;border-radius:50%}.key i.bar{width:.3em;height:1em}"
    ".attention,.left-out{font-size:15px}"
    ".guarantee.met{color:#1e8449}.guarantee.missed{color:#c0392b;font-weight:bold}";

static void cell_pct(FILE *f, double v)
{
	if (v < 0)
		fputs("<td>-</td>", f);
	else
		fprintf(f, "<td>%.1f%%</td>", v);
}

static void cell_time(FILE *f, int64_t ms)
{
	time_t t = (time_t)(ms / 1000);
	struct tm tm;
	char buf[32] = "-";

	if (ms && gmtime_r(&t, &tm))
		strftime(buf, sizeof(buf), "%Y-%m-%d %H:%M:%SZ", &tm);
	fprintf(f, "<td>%s</td>", buf);
}

static void machine_summary(FILE *f, const struct report *r)
{
	fputs("<h2>Machine</h2>\n<table class=\"machine\">", f);
	fputs("<tr><th>database</th><td>", f);
	html_text(f, r->db);
	fputs("</td></tr>\n<tr><th>first batch</th>", f);
	cell_time(f, r->first_sample_ms);
	fputs("</tr><tr><th>last batch</th>", f);
	cell_time(f, r->last_sample_ms);
	fprintf(f,
		"</tr>\n<tr><th>batches</th><td>%zu</td></tr><tr><th>daemon starts</th>"
		"<td>%zu</td></tr><tr><th>cgroups</th><td>%zu</td></tr>"
		"<tr><th>THP allocations</th><td>%llu</td></tr><tr><th>PMD "
		"splits</th><td>%llu</td></tr>"
		"<tr><th>whole unmaps</th><td>%llu</td></tr></table>\n",
		r->batches, r->nruns, r->ncgroups, (unsigned long long)r->thp_alloc,
		(unsigned long long)r->counts[CG_IDX_pmd_split],
		(unsigned long long)r->counts[CG_IDX_pmd_unmap_whole]);
	fputs("<div class=\"wide\"><table "
	      "class=\"zones\"><tr><th>zone</th><th>order</th><th>managed pages</th>"
	      "<th>free pages</th><th>free blocks by order</th></tr>\n",
	      f);
	for (size_t i = 0; i < r->nzones; i++) {
		if (!r->zones[i].managed_pages)
			continue;
		fprintf(f, "<tr><td>node %d ", r->zones[i].node);
		html_text(f, r->zones[i].name);
		if (r->zones[i].order >= 0)
			fprintf(f, "</td><td>%d", r->zones[i].order);
		else
			fputs("</td><td>-", f);
		fprintf(f, "</td><td>%llu</td><td>%llu</td><td>",
			(unsigned long long)r->zones[i].managed_pages,
			(unsigned long long)r->zones[i].free_pages);
		html_text(f, r->zones[i].free_blocks);
		fputs("</td></tr>\n", f);
	}
	fputs("</table></div>\n", f);
}

static void guarantee_line(FILE *f, const struct report_cgroup *c)
{
	if (c->guarantee_pct < 0)
		fputs("<p class=\"guarantee unknown\">coverage guarantee unknown (no configuration "
		      "given to the report)</p>\n",
		      f);
	else if (c->guarantee_pct == 0)
		return;
	else if (c->coverage_mean < 0)
		fprintf(f,
			"<p class=\"guarantee unknown\">guarantee %.0f%%: no coverage known</p>\n",
			c->guarantee_pct);
	else if (report_guarantee_missed(c))
		fprintf(
		    f,
		    "<p class=\"guarantee missed\">guarantee %.0f%% missed by %.1f points (mean "
		    "coverage %.1f%%)</p>\n",
		    c->guarantee_pct, c->guarantee_pct - c->coverage_mean, c->coverage_mean);
	else
		fprintf(
		    f,
		    "<p class=\"guarantee met\">guarantee %.0f%% met (mean coverage %.1f%%)</p>\n",
		    c->guarantee_pct, c->coverage_mean);
}

static void fragmentation(FILE *f, const struct report *r)
{
	if (!r->nfrag)
		return;
	fputs("<h2>Free blocks by order (all zones, log scale)</h2>\n<p class=\"legend "
	      "orders\">free blocks at the end, by order: ",
	      f);
	for (int o = 0; o < r->frag_orders; o++) {
		char label[64];

		snprintf(label, sizeof(label), "order %d: %llu", o,
			 (unsigned long long)r->frag[r->nfrag - 1].blocks[o]);
		svg_legend_key(f, svg_order_color(o), label);
	}
	fputs("</p>\n", f);
	svg_fragmentation(f, r);
}

/* TAO kernels: the vmstat counters' change, HVO, and shattering over time. */
static void tao_section(FILE *f, const struct report *r)
{
	static const char *const legend[] = {"shattered", "failed", "discarded"};
	uint64_t pages, saved;

	if (!r->tao.ncounters)
		return;
	fputs("<section class=\"tao\">\n<h2>TAO policy zones and shattering</h2>\n"
	      "<table class=\"tao-counters\"><tr><th>vmstat counter</th><th>change in the "
	      "window</th><th>now</th></tr>\n",
	      f);
	for (size_t i = 0; i < r->tao.ncounters; i++) {
		fputs("<tr><td>", f);
		html_text(f, r->tao.counters[i].stat);
		fprintf(f, "</td><td>%+lld</td><td>%llu</td></tr>\n",
			(long long)r->tao.counters[i].delta,
			(unsigned long long)r->tao.counters[i].value);
	}
	fputs("</table>\n", f);
	if (report_hvo(r, &pages, &saved))
		fprintf(f,
			"<p class=\"hvo\">HVO: %llu THPs optimized, %.1f MiB of vmemmap saved "
			"(28 KiB per 2 MiB THP).</p>\n",
			(unsigned long long)pages, (double)saved / (1 << 20));
	else
		fputs("<p class=\"hvo\">HVO: not counted by this kernel (no thp_hvo_page).</p>\n",
		      f);
	if (r->tao.nseries) {
		fputs("<p class=\"legend\">THPs since the window's start: ", f);
		for (int i = 0; i < 3; i++)
			svg_legend_key(f, svg_shatter_color(i), legend[i]);
		fputs("</p>\n", f);
		svg_shatter(f, r);
	}
	fputs("</section>\n", f);
}

/* The workload the path's name claims (a label, as the table shows it). */
static void workload_cell(FILE *f, const char *path)
{
	char label[WORKLOAD_FIELD_MAX + 8];
	struct workload_name w;

	workload_name_parse(path, &w);
	fputs("<td class=\"workload\">", f);
	html_text(f, workload_name_label(&w, label, sizeof(label)));
	fputs("</td></tr>\n", f);
}

static void summary_table(FILE *f, const struct report *r, const size_t *order, size_t n)
{
	fputs("<h2>Cgroups by concern</h2>\n", f);
	report_left_out(f, r, n, "<p class=\"left-out\">", "</p>\n");
	fputs("<div class=\"wide\"><table "
	      "class=\"summary\"><tr><th>cgroup</th><th>class</th><th>coverage</th>"
	      "<th>min</th><th>mean</th><th>max</th><th>anon MiB</th><th>THP "
	      "MiB</th><th>allocations</th>"
	      "<th>splits</th><th>split ratio</th><th>class changes</th><th>actions</th>"
	      "<th>workload</th></tr>\n",
	      f);
	for (size_t k = 0; k < n; k++) {
		size_t i = order[k];
		const struct report_cgroup *c = &r->cgroups[i];

		fprintf(f, k < MAX_SECTIONS ? "<tr><td><a href=\"#cg%zu\">" : "<tr><td><a>", i);
		html_text(f, c->path);
		fputs("</a></td><td>", f);
		html_text(f, c->class[0] ? c->class : "-");
		fputs("</td>", f);
		cell_pct(f, c->coverage_now);
		cell_pct(f, c->coverage_min);
		cell_pct(f, c->coverage_mean);
		cell_pct(f, c->coverage_max);
		fprintf(f,
			"<td>%.1f</td><td>%.1f</td><td>%llu</td><td>%llu</td><td>%.3f</td><td>%zu</"
			"td><td>%zu</td>",
			c->anon_bytes > 0 ? (double)c->anon_bytes / (1 << 20) : 0.0,
			c->thp_bytes > 0 ? (double)c->thp_bytes / (1 << 20) : 0.0,
			(unsigned long long)c->thp_alloc,
			(unsigned long long)c->counts[CG_IDX_pmd_split], report_split_ratio(c),
			c->nchanges, c->nactions);
		workload_cell(f, c->path);
	}
	fputs("</table></div>\n", f);
}

static void shatter_line(FILE *f, const struct report_cgroup *c)
{
	struct report_shatter_sum s = report_cgroup_shatter(c);

	if (s.actions)
		fprintf(f,
			"<p class=\"shatter\">%zu shatter(s) the kernel counted: %llu THPs "
			"shattered, %llu failed, %llu discarded, %llu split.</p>\n",
			s.actions, (unsigned long long)s.shattered, (unsigned long long)s.failed,
			(unsigned long long)s.discarded, (unsigned long long)s.split);
}

static void action_row(FILE *f, const struct report_action *a)
{
	fputs("<tr>", f);
	cell_time(f, a->t_ms);
	fputs("<td>", f);
	html_text(f, a->kind);
	fprintf(f,
		"</td><td class=\"result\"><span class=\"key\"><i class=\"dot\" "
		"style=\"background:%s\"></i>",
		svg_result_color(a->result));
	html_text(f, a->result);
	fputs("</span></td><td>", f);
	html_text(f, a->policy[0] ? a->policy : "-");
	fprintf(f, "</td><td>%.1f</td><td class=\"detail\">", (double)a->bytes / (1 << 20));
	html_text(f, a->detail);
	fputs("</td></tr>\n", f);
}

/* The cgroup's actions in the window, the last MAX_ACTION_ROWS of them. */
static void action_table(FILE *f, const struct report_cgroup *c)
{
	size_t from = c->nactions > MAX_ACTION_ROWS ? c->nactions - MAX_ACTION_ROWS : 0;

	if (!c->nactions)
		return;
	fprintf(f, "<h3>Actions (%zu)</h3>\n", c->nactions);
	if (from)
		fprintf(f,
			"<p class=\"earlier\">The last %d; %zu earlier ones are in <code>--format "
			"json</code> and <code>csv</code>.</p>\n",
			MAX_ACTION_ROWS, from);
	fputs("<div class=\"wide\"><table class=\"actions\"><tr><th>time</th><th>action</th>"
	      "<th>result</th><th>policy</th><th>MiB</th><th>detail</th></tr>\n",
	      f);
	for (size_t i = from; i < c->nactions; i++)
		action_row(f, &c->actions[i]);
	fputs("</table></div>\n", f);
}

static void cgroup_section(FILE *f, const struct report *r, size_t i)
{
	const struct report_cgroup *c = &r->cgroups[i];

	fprintf(f, "<section class=\"cgroup\" id=\"cg%zu\" data-cgroup=\"", i);
	html_text(f, c->path);
	fprintf(f, "\" data-cgroup-id=\"%llu\" data-present=\"%s\">\n<h2>",
		(unsigned long long)c->cgroup_id, report_cgroup_present(r, c) ? "yes" : "no");
	html_text(f, c->path);
	if (!report_cgroup_present(r, c))
		fputs(" (gone)", f);
	fprintf(f,
		"</h2>\n<p>%zu samples; %llu THP allocations, %llu PMD splits, %llu whole "
		"unmaps in the window.</p>\n",
		c->samples, (unsigned long long)c->thp_alloc,
		(unsigned long long)c->counts[CG_IDX_pmd_split],
		(unsigned long long)c->counts[CG_IDX_pmd_unmap_whole]);
	guarantee_line(f, c);
	shatter_line(f, c);
	report_sizes_html(f, c);
	svg_chart_legend(f, c->nactions);
	svg_chart(f, r, c);
	action_table(f, c);
	fputs("</section>\n", f);
}

/* One line up top: how many need attention, by why (every cgroup counts, shown or not). */
static void attention(FILE *f, const struct report *r)
{
	static const char *const why[] = {"abusers", "misusers", "missed guarantees",
					  "others acted on"};
	size_t n[CONCERN_ACTIVE] = {0};

	for (size_t i = 0; i < r->ncgroups; i++)
		if (report_concern(&r->cgroups[i]) < CONCERN_ACTIVE)
			n[report_concern(&r->cgroups[i])]++;
	fputs("<p class=\"attention\">Needs attention: ", f);
	for (int k = 0; k < CONCERN_ACTIVE; k++)
		fprintf(f, "%s%zu %s", k ? ", " : "", n[k], why[k]);
	fputs(". Then the busiest cgroups.</p>\n", f);
}

int report_write_html(FILE *f, const struct report *r)
{
	assert(f);
	assert(r);

	size_t n = 0, *order = report_shown(r, &n);

	if (!order)
		return -1;
	fprintf(f,
		"<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
		"<meta name=\"viewport\" content=\"width=device-width\">"
		"<title>taod report</title><style>%s</style></head><body>\n",
		style);
	fputs("<h1>taod THP coverage report</h1>\n", f);
	attention(f, r);
	summary_table(f, r, order, n);
	machine_summary(f, r);
	fragmentation(f, r);
	tao_section(f, r);
	report_costs_html(f, r);
	for (size_t k = 0; k < n && k < MAX_SECTIONS; k++)
		cgroup_section(f, r, order[k]);
	if (n > MAX_SECTIONS)
		fprintf(f,
			"<p class=\"left-out\">Charts for the first %d cgroups only; "
			"<code>--cgroup GLOB</code> charts others.</p>\n",
			MAX_SECTIONS);
	fputs("</body></html>\n", f);
	free(order);
	return ferror(f) ? -1 : 0;
}
