// SPDX-License-Identifier: GPL-2.0
/* `taoctl report` for a terminal: machine summary, then a line per cgroup. */
#include <assert.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "common/pct_text.h"
#include "report/report.h"
#include "report_sizes.h"
#include "report_costs_out.h"
#include "common/utf8.h"
#include "common/workload_name.h"

/*
 * A short text of the database (a class, a stat or zone name, a result) as
 * the terminal may see it: a crafted database holds any bytes.
 */
static const char *shown(char *buf, size_t len, const char *text)
{
	text_escape(text, buf, len, false);
	return buf;
}

static const char *fmt_time(char *buf, size_t len, int64_t ms)
{
	time_t t = (time_t)(ms / 1000);
	struct tm tm;

	if (!ms || !gmtime_r(&t, &tm))
		snprintf(buf, len, "-");
	else
		strftime(buf, len, "%Y-%m-%d %H:%M:%SZ", &tm);
	return buf;
}

static const char *fmt_mib(char *buf, size_t len, int64_t bytes)
{
	if (bytes < 0)
		snprintf(buf, len, "-");
	else
		snprintf(buf, len, "%.1f", (double)bytes / (1 << 20));
	return buf;
}

/* TAO kernels: each counter's change in the window, and HVO where counted. */
static void tao_summary(FILE *f, const struct report *r)
{
	uint64_t pages, saved;
	char name[sizeof(r->tao.counters->stat) * 4];

	if (!r->tao.ncounters)
		return;
	for (size_t i = 0; i < r->tao.ncounters; i++)
		fprintf(f, "tao     %-34s %+lld (now %llu)\n",
			shown(name, sizeof(name), r->tao.counters[i].stat),
			(long long)r->tao.counters[i].delta,
			(unsigned long long)r->tao.counters[i].value);
	if (report_hvo(r, &pages, &saved))
		fprintf(f, "hvo     %llu THPs optimized, %.1f MiB of vmemmap saved\n",
			(unsigned long long)pages, (double)saved / (1 << 20));
	else
		fputs("hvo     not counted by this kernel (no thp_hvo_page)\n", f);
}

/* Share of the window's batches in each contiguity-pressure state. */
static void pressure_summary(FILE *f, const struct report *r)
{
	const struct report_pressure *p = &r->pressure;
	size_t n = report_pressure_batches(r);

	if (!n)
		return;
	fprintf(f,
		"pressure none %.1f%%, some %.1f%%, full %.1f%% of %zu batches; rose to some %zu "
		"times, to full %zu; last %s",
		100.0 * (double)p->batches[0] / (double)n,
		100.0 * (double)p->batches[1] / (double)n,
		100.0 * (double)p->batches[2] / (double)n, n, p->entered[1], p->entered[2],
		p->last_state);
	if (p->last_why[0]) {
		fputs(" (", f);
		text_fputs(p->last_why, f);
		fputc(')', f);
	}
	fputc('\n', f);
}

static void summary(FILE *f, const struct report *r)
{
	char a[32], b[32], stat[sizeof(r->mthp->stat) * 4];

	fputs("history ", f);
	text_fputs(r->db, f);
	fprintf(f, "\nwindow  %s .. %s, %zu batches, %zu daemon start(s)\n",
		fmt_time(a, sizeof(a), r->first_sample_ms),
		fmt_time(b, sizeof(b), r->last_sample_ms), r->batches, r->nruns);
	fprintf(f, "cgroups %zu; THP allocations %llu, PMD splits %llu, whole unmaps %llu\n",
		r->ncgroups, (unsigned long long)r->thp_alloc,
		(unsigned long long)r->counts[CG_IDX_pmd_split],
		(unsigned long long)r->counts[CG_IDX_pmd_unmap_whole]);
	for (size_t i = 0; i < r->nzones; i++) {
		char order[16] = "", name[sizeof(r->zones->name) * 4],
		     blocks[sizeof(r->zones->free_blocks) * 4];

		if (!r->zones[i].managed_pages)
			continue;
		if (r->zones[i].order >= 0)
			snprintf(order, sizeof(order), " order %d,", r->zones[i].order);
		fprintf(f,
			"zone    node %d %-8s%s managed %llu pages, free %llu, free blocks "
			"by order: %s\n",
			r->zones[i].node, shown(name, sizeof(name), r->zones[i].name), order,
			(unsigned long long)r->zones[i].managed_pages,
			(unsigned long long)r->zones[i].free_pages,
			shown(blocks, sizeof(blocks), r->zones[i].free_blocks));
	}
	for (size_t i = 0; i < r->nmthp; i++)
		if (r->mthp[i].delta)
			fprintf(f, "mthp    %5ukB %-28s %+lld (now %llu)\n", r->mthp[i].size_kb,
				shown(stat, sizeof(stat), r->mthp[i].stat),
				(long long)r->mthp[i].delta, (unsigned long long)r->mthp[i].value);
	tao_summary(f, r);
	pressure_summary(f, r);
	report_costs_table(f, r);
	fputc('\n', f);
}

/* The path column fits the longest path shown, so long paths keep columns aligned. */
static int path_width(const struct report *r, const size_t *order, size_t n)
{
	int w = 6; /* "CGROUP" */

	for (size_t k = 0; k < n; k++) {
		char *shown = text_escape_dup(r->cgroups[order[k]].path, false);
		int n = shown ? (int)strlen(shown) : 0;

		free(shown);
		w = n > w ? n : w;
	}
	return w;
}

static const struct report_action *last_collapse(const struct report_cgroup *c)
{
	for (size_t i = c->nactions; i-- > 0;)
		if (!strcmp(c->actions[i].kind, "collapse"))
			return &c->actions[i];
	return NULL;
}

/* Rewards whose last collapse did not collapse: the guarantee is not being met, and why. */
static void unmet_rewards(FILE *f, const struct report *r)
{
	bool header = false;

	for (size_t i = 0; i < r->ncgroups; i++) {
		const struct report_action *a = last_collapse(&r->cgroups[i]);
		char t[32], res[sizeof(a->result) * 4];

		if (!a || !strcmp(a->result, "done"))
			continue;
		if (!header)
			fputs("\nrewards that collapsed nothing (last collapse per cgroup):\n", f);
		header = true;
		fputs("  ", f);
		text_fputs(r->cgroups[i].path, f);
		fprintf(f, "  %s at %s: ", shown(res, sizeof(res), a->result),
			fmt_time(t, sizeof(t), a->t_ms));
		text_fputs(a->detail, f); /* details quote names and comms */
		fputc('\n', f);
	}
}

/* Boot-zone TAO: what each cgroup's shatters did to its THPs, as the kernel counted. */
static void shatter_counts(FILE *f, const struct report *r)
{
	bool header = false;

	for (size_t i = 0; i < r->ncgroups; i++) {
		struct report_shatter_sum s = report_cgroup_shatter(&r->cgroups[i]);
		char *path;

		if (!s.actions)
			continue;
		if (!header)
			fputs("\nshatters the kernel counted (THPs, per cgroup over the window):\n",
			      f);
		header = true;
		path = text_escape_dup(r->cgroups[i].path, false);
		fprintf(f,
			"  %s  %zu shatter(s): shattered %llu, failed %llu, discarded %llu pages, "
			"split %llu\n",
			path ? path : "?", s.actions, (unsigned long long)s.shattered,
			(unsigned long long)s.failed, (unsigned long long)s.discarded,
			(unsigned long long)s.split);
		free(path);
	}
}

/* One cgroup's line; '*' after the path marks one gone by the window's end. */
static void table_row(FILE *f, const struct report *r, const struct report_cgroup *c, int w)
{
	char now[16], lo[16], mean[16], hi[16], anon[32], thp[32], cls[sizeof(c->class) * 4];
	char label[WORKLOAD_FIELD_MAX + 8];
	struct workload_name wl;
	/* A name's control characters would drive the terminal: \xNN here. */
	char *path = text_escape_dup(c->path, false);

	workload_name_parse(c->path, &wl);
	fprintf(f, "%-*s%s %-10s %6s %6s %6s %6s %9s %9s %8llu %8llu %6.3f %13zu %7zu  %s\n", w,
		path ? path : "?", report_cgroup_present(r, c) ? " " : "*",
		c->class[0] ? shown(cls, sizeof(cls), c->class) : "-",
		pct_text(now, sizeof(now), c->coverage_now, ""),
		pct_text(lo, sizeof(lo), c->coverage_min, ""),
		pct_text(mean, sizeof(mean), c->coverage_mean, ""),
		pct_text(hi, sizeof(hi), c->coverage_max, ""),
		fmt_mib(anon, sizeof(anon), c->anon_bytes), fmt_mib(thp, sizeof(thp), c->thp_bytes),
		(unsigned long long)c->thp_alloc, (unsigned long long)c->counts[CG_IDX_pmd_split],
		report_split_ratio(c), c->nchanges, c->nactions,
		workload_name_label(&wl, label, sizeof(label)));
	free(path);
}

/*
 * Abusers first (report_shown), so the ones to act on are not buried
 * among idle cgroups, which stay out; each header names one thing.
 */
int report_write_table(FILE *f, const struct report *r)
{
	assert(f);
	assert(r);

	size_t n = 0, *order = report_shown(r, &n);
	bool gone = false;
	int w;

	if (!order)
		return -1;
	w = path_width(r, order, n);
	summary(f, r);
	fprintf(f, "%-*s  %-10s %6s %6s %6s %6s %9s %9s %8s %8s %6s %13s %7s  %s\n", w, "CGROUP",
		"CLASS", "COVER", "MIN", "MEAN", "MAX", "ANON MiB", "THP MiB", "ALLOCS", "SPLITS",
		"RATIO", "CLASS CHANGES", "ACTIONS", "WORKLOAD");
	for (size_t k = 0; k < n; k++) {
		table_row(f, r, &r->cgroups[order[k]], w);
		gone |= !report_cgroup_present(r, &r->cgroups[order[k]]);
	}
	if (gone)
		fputs("(* gone: not seen in the last batch)\n", f);
	report_left_out(f, r, n, "(", ")\n");
	free(order);
	unmet_rewards(f, r);
	shatter_counts(f, r);
	report_sizes_table(f, r);
	return ferror(f) ? -1 : 0;
}
