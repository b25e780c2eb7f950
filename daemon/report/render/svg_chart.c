// SPDX-License-Identifier: GPL-2.0
/*
 * One cgroup's chart as inline SVG: THP coverage (left axis, 0-100%) and
 * PMD split rate (right axis, scaled to its peak) over time, with a mark
 * per action (coloured by its result) and per class change, under a time
 * axis with ticks. Long series are bucketed to at most MAX_BUCKETS points,
 * and close marks of one result drawn once, so a week of history stays a
 * small file.
 */
#include <assert.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "report/report.h"

#define W	    900
#define H	    262
#define LEFT	    62
#define RIGHT	    72
#define TOP	    16
#define BOTTOM	    46
#define MAX_BUCKETS 240
#define MARK_PX	    6 /* marks of one result closer than this are drawn as one */

struct frame {
	int64_t t0, t1;
	double rate_max;
};

static double x_of(const struct frame *fr, int64_t t)
{
	double span = fr->t1 > fr->t0 ? (double)(fr->t1 - fr->t0) : 1;

	return LEFT + (double)(t - fr->t0) * (W - LEFT - RIGHT) / span;
}

static double y_of(double v, double max)
{
	return TOP + (H - TOP - BOTTOM) * (1.0 - (max > 0 ? v / max : 0));
}

static struct frame frame_of(const struct report_cgroup *c, int64_t since, int64_t until)
{
	struct frame fr = {since, until, 0};

	if (c->npoints) { /* the data's own span: a short run is not a dot at the edge */
		fr.t0 = c->points[0].t_ms;
		fr.t1 = c->points[c->npoints - 1].t_ms;
	}
	for (size_t i = 0; i < c->npoints; i++)
		if (c->points[i].split_rate > fr.rate_max)
			fr.rate_max = c->points[i].split_rate;
	return fr;
}

/* Bucket @b of the points from @from to @to: mean coverage (-1 if none known), peak split rate. */
static void bucket(const struct report_cgroup *c, size_t from, size_t to, size_t b, size_t per,
		   struct report_point *out)
{
	size_t start = from + b * per, end = start + per < to ? start + per : to, n = 0;
	double sum = 0;

	*out = (struct report_point){c->points[start].t_ms, -1, 0};
	for (size_t i = start; i < end; i++) {
		if (c->points[i].coverage_pct >= 0) {
			sum += c->points[i].coverage_pct;
			n++;
		}
		if (c->points[i].split_rate > out->split_rate)
			out->split_rate = c->points[i].split_rate;
	}
	if (n)
		out->coverage_pct = sum / (double)n;
}

static int cmp_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

	return (x > y) - (x < y);
}

/*
 * The series' usual spacing: the median step between points (one history
 * batch). 0 with fewer than two points, or without memory.
 */
static int64_t usual_step(const struct report_cgroup *c)
{
	int64_t *d, med;

	if (c->npoints < 2 || !(d = malloc((c->npoints - 1) * sizeof(*d))))
		return 0;
	for (size_t i = 1; i < c->npoints; i++)
		d[i - 1] = c->points[i].t_ms - c->points[i - 1].t_ms;
	qsort(d, c->npoints - 1, sizeof(*d), cmp_i64);
	med = d[(c->npoints - 1) / 2];
	free(d);
	return med;
}

/* Points from..to-1 as one polyline, bucketed @per points a vertex. */
static void segment(FILE *f, const struct report_cgroup *c, const struct frame *fr, bool rate,
		    size_t from, size_t to, size_t per)
{
	fprintf(f,
		"<polyline class=\"%s\" fill=\"none\" stroke=\"%s\" stroke-width=\"1.5\" points=\"",
		rate ? "split-rate" : "coverage", rate ? "#c0392b" : "#2471a3");
	for (size_t b = 0; from + b * per < to; b++) {
		struct report_point p;

		bucket(c, from, to, b, per, &p);
		if (!rate && p.coverage_pct < 0)
			continue;
		fprintf(f, "%.0f,%.0f ", x_of(fr, p.t_ms),
			rate ? y_of(p.split_rate, fr->rate_max) : y_of(p.coverage_pct, 100));
	}
	fputs("\"/>\n", f);
}

/* Whether taod started again between samples @a and @b (@a < start <= @b). */
static bool restarted_between(const struct report *r, int64_t a, int64_t b)
{
	for (size_t i = 0; i < r->nruns; i++)
		if (r->run_starts[i] > a && r->run_starts[i] <= b)
			return true;
	return false;
}

/*
 * Where the line breaks between two samples: taod started again in
 * between (it was down), or they lie further apart than many usual steps
 * and GAP_FLOOR_MS (taod stopped, the machine suspended, the cgroup unseen).
 * A loaded machine's late ticks are no gap: lab guests under emulation
 * took over 10 s between batches. The time nothing was measured is a gap,
 * not a slope.
 */
#define GAP_STEPS    20
#define GAP_FLOOR_MS (5 * 60 * 1000)
static bool gap_between(const struct report *r, const struct report_point *a,
			const struct report_point *b, int64_t step)
{
	int64_t dt = b->t_ms - a->t_ms;

	return restarted_between(r, a->t_ms, b->t_ms) ||
	       (dt > GAP_FLOOR_MS && dt > GAP_STEPS * step);
}

/* One polyline per stretch of samples without a gap. */
static void polyline(FILE *f, const struct report *r, const struct report_cgroup *c,
		     const struct frame *fr, bool rate)
{
	size_t per = (c->npoints + MAX_BUCKETS - 1) / MAX_BUCKETS, from = 0;
	int64_t step = usual_step(c);

	for (size_t i = 1; per && i <= c->npoints; i++) {
		if (i < c->npoints && !gap_between(r, &c->points[i - 1], &c->points[i], step))
			continue;
		segment(f, c, fr, rate, from, i, per);
		from = i;
	}
}

/* Action results by the colour of their marks; the last row takes every other result. */
static const struct {
	const char *result, *label, *color;
} results[] = {
    {"done", "done", "#1e8449"},
    {"dry-run", "dry-run", "#7d3c98"},
    {"unsupported", "unsupported", "#839192"},
    {"failed", "failed", "#e6194b"},
    {NULL, "not carried out (rate-limited, no-gain, ...)", "#34495e"},
};
#define NRESULTS (sizeof(results) / sizeof(results[0]))
#define NCOLUMNS ((W - LEFT - RIGHT) / MARK_PX + 1)

static size_t result_row(const char *result)
{
	size_t i = 0;

	while (results[i].result && strcmp(results[i].result, result))
		i++;
	return i;
}

const char *svg_result_color(const char *result)
{
	return results[result_row(result)].color;
}

/* A legend key: a swatch of @color, then @label in the text's own colour (legible on white). */
static void key(FILE *f, const char *color, const char *shape, const char *label)
{
	fprintf(f, "<span class=\"key\"><i class=\"%s\" style=\"background:%s\"></i>", shape,
		color);
	html_text(f, label);
	fputs("</span>", f);
}

void svg_legend_key(FILE *f, const char *color, const char *label)
{
	key(f, color, "line", label);
}

void svg_chart_legend(FILE *f, bool actions)
{
	fputs("<p class=\"legend\">", f);
	key(f, "#2471a3", "line", "THP coverage (%, left axis)");
	key(f, "#c0392b", "line", "PMD splits/s (right axis)");
	key(f, "#d68910", "bar", "class change");
	if (actions) {
		fputs("<br>actions by result: ", f);
		for (size_t i = 0; i < NRESULTS; i++)
			key(f, results[i].color, "dot", results[i].label);
	}
	fputs("</p>\n", f);
}

/* Column of the plot @x falls in, MARK_PX wide. */
static size_t column(double x)
{
	double c = (x - LEFT) / MARK_PX;

	return c <= 0 ? 0 : c >= NCOLUMNS - 1 ? NCOLUMNS - 1 : (size_t)c;
}

/* The first action of each result and column, with how many share it. */
static void action_mark(FILE *f, const struct report_action *a, double x, size_t g, size_t n)
{
	int y = TOP + 5 + 7 * (int)g; /* results on their own rows: none hides another */

	/* Terse: an abuser's hundreds of marks are much of a big host's page. */
	fputs("<g class=\"action\" data-kind=\"", f);
	html_text(f, a->kind); /* the database's text: a crafted one holds any bytes */
	fprintf(f,
		"\" data-result=\"%s\" data-count=\"%zu\" fill=\"%s\" stroke=\"%s\"><path "
		"d=\"M%.0f %dV%d\" stroke-dasharray=\"3,2\"/><circle cx=\"%.0f\" cy=\"%d\" "
		"r=\"4\"><title>",
		results[g].result ? results[g].result : "other", n, results[g].color,
		results[g].color, x, y, H - BOTTOM, x, y);
	if (n > 1)
		fprintf(f, "%zu actions, the first: ", n);
	html_text(f, a->kind);
	fputs(" (", f);
	html_text(f, a->result);
	fputs("): ", f);
	html_text(f, a->detail);
	fputs("</title></circle></g>\n", f);
}

static void action_marks(FILE *f, const struct report_cgroup *c, const struct frame *fr)
{
	size_t(*count)[NCOLUMNS] = calloc(NRESULTS, sizeof(*count));

	if (!count)
		return; /* the table below the chart lists them */
	for (size_t i = 0; i < c->nactions; i++)
		count[result_row(c->actions[i].result)][column(x_of(fr, c->actions[i].t_ms))]++;
	for (size_t i = 0; i < c->nactions; i++) {
		const struct report_action *a = &c->actions[i];
		double x = x_of(fr, a->t_ms);
		size_t g = result_row(a->result), *n = &count[g][column(x)];

		if (*n)
			action_mark(f, a, x, g, *n);
		*n = 0; /* drawn: the column's later ones are in its count */
	}
	free(count);
}

static void marks(FILE *f, const struct report_cgroup *c, const struct frame *fr)
{
	action_marks(f, c, fr);
	for (size_t i = 0; i < c->nchanges; i++) {
		double x = x_of(fr, c->changes[i].t_ms);

		fprintf(f,
			"<g class=\"class-change\"><rect x=\"%.1f\" y=\"%d\" width=\"3\" "
			"height=\"8\" fill=\"#d68910\"><title>class ",
			x - 1.5, H - BOTTOM - 8);
		html_text(f, c->changes[i].from[0] ? c->changes[i].from : "unknown");
		fputs(" &#8594; ", f);
		html_text(f, c->changes[i].to);
		fputs("</title></rect></g>\n", f);
	}
}

static const char *utc_time(char *buf, size_t len, int64_t ms)
{
	time_t t = (time_t)(ms / 1000);
	struct tm tm;

	if (!gmtime_r(&t, &tm) || !strftime(buf, len, "%Y-%m-%d %H:%M:%SZ", &tm))
		snprintf(buf, len, "?");
	return buf;
}

/* Tick spacings (ms), finest first: the first giving at most MAX_TICKS ticks. */
static const int64_t tick_steps[] = {1000,     2000,	 5000,	   10000,     15000,
				     30000,    60000,	 120000,   300000,    600000,
				     900000,   1800000,	 3600000,  7200000,   10800000,
				     21600000, 43200000, 86400000, 172800000, 604800000};
#define MAX_TICKS 8

static int64_t tick_step(int64_t span)
{
	size_t n = sizeof(tick_steps) / sizeof(tick_steps[0]), i = 0;

	while (i + 1 < n && span / tick_steps[i] > MAX_TICKS)
		i++;
	return tick_steps[i];
}

/* Ticks at whole multiples of the step (UTC), labelled as finely as the step needs. */
static void time_ticks(FILE *f, const struct frame *fr)
{
	int64_t step = tick_step(fr->t1 - fr->t0), t;
	const char *fmt = step < 60000 ? "%H:%M:%S" : step < 86400000 ? "%H:%M" : "%m-%d";

	if (fr->t1 <= fr->t0)
		return;
	for (t = (fr->t0 + step - 1) / step * step; t <= fr->t1; t += step) {
		time_t s = (time_t)(t / 1000);
		struct tm tm;
		char label[16];
		double x = x_of(fr, t);

		if (!gmtime_r(&s, &tm) || !strftime(label, sizeof(label), fmt, &tm))
			continue;
		fprintf(f,
			"<line class=\"tick\" x1=\"%.0f\" x2=\"%.0f\" y1=\"%d\" y2=\"%d\" "
			"stroke=\"#aab7b8\"/><text x=\"%.0f\" y=\"%d\" font-size=\"11\" "
			"text-anchor=\"middle\">%s</text>\n",
			x, x, H - BOTTOM, H - BOTTOM + 5, x, H - BOTTOM + 17, label);
	}
}

/* The plot area and the time axis, shared by every chart. */
static void frame_box(FILE *f, const struct frame *fr)
{
	char t0[32], t1[32];

	fprintf(f,
		"<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"#fbfcfc\" "
		"stroke=\"#aab7b8\"/>\n",
		LEFT, TOP, W - LEFT - RIGHT, H - TOP - BOTTOM);
	time_ticks(f, fr);
	fprintf(f, "<text x=\"%d\" y=\"%d\" font-size=\"11\">%s</text>\n", LEFT, H - 6,
		utc_time(t0, sizeof(t0), fr->t0));
	fprintf(f,
		"<text x=\"%d\" y=\"%d\" font-size=\"11\" text-anchor=\"middle\">time "
		"(UTC)</text>\n",
		(W + LEFT - RIGHT) / 2, H - 6);
	fprintf(f, "<text x=\"%d\" y=\"%d\" font-size=\"11\" text-anchor=\"end\">%s</text>\n",
		W - RIGHT, H - 6, utc_time(t1, sizeof(t1), fr->t1));
}

/* An axis title along the side at @x, rotated to read upwards. */
static void side_title(FILE *f, int x, const char *color, const char *title)
{
	fprintf(f,
		"<text font-size=\"11\" fill=\"%s\" text-anchor=\"middle\" "
		"transform=\"translate(%d,%d) rotate(-90)\">%s</text>\n",
		color, x, (TOP + H - BOTTOM) / 2, title);
}

static void axes(FILE *f, const struct frame *fr)
{
	frame_box(f, fr);
	for (int pct = 0; pct <= 100; pct += 25)
		fprintf(f,
			"<text x=\"%d\" y=\"%.1f\" font-size=\"11\" text-anchor=\"end\" "
			"fill=\"#2471a3\">%d%%</text>\n",
			LEFT - 4, y_of(pct, 100) + 3, pct);
	side_title(f, 14, "#2471a3", "THP coverage (%)");
	/* The split rate's scale: its peak in quarters (only 0 without splits). */
	for (int q = 0; q <= (fr->rate_max > 0 ? 4 : 0); q++)
		fprintf(f,
			"<text x=\"%d\" y=\"%.1f\" font-size=\"11\" fill=\"#c0392b\">%.3g</text>\n",
			W - RIGHT + 4, y_of(fr->rate_max * q / 4, fr->rate_max) + 3,
			fr->rate_max * q / 4);
	side_title(f, W - 8, "#c0392b", "PMD splits/s");
}

void svg_chart(FILE *f, const struct report *r, const struct report_cgroup *c)
{
	assert(f);
	assert(r);
	assert(c);

	struct frame fr = frame_of(c, r->since_ms, r->until_ms);

	fprintf(f,
		"<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"chart\" width=\"%d\" "
		"height=\"%d\" viewBox=\"0 0 %d %d\" role=\"img\" data-points=\"%zu\" "
		"data-actions=\"%zu\">\n<title>THP coverage and split rate of ",
		W, H, W, H, c->npoints, c->nactions);
	html_text(f, c->path);
	fputs("</title>\n", f);
	axes(f, &fr);
	polyline(f, r, c, &fr, false);
	polyline(f, r, c, &fr, true);
	marks(f, c, &fr);
	fputs("</svg>\n", f);
}

/* log10(1 + n): order-0 counts dwarf order-9 ones, and both matter. */
static double log_count(uint64_t n)
{
	return log10(1.0 + (double)n);
}

/* Eleven hues apart, each dark enough to see as a line on the plot's white. */
static const char *const order_colors[] = {"#7f7f7f", "#1f77b4", "#ff7f0e", "#2ca02c",
					   "#d62728", "#9467bd", "#8c564b", "#e377c2",
					   "#17becf", "#bcbd22", "#393b79"};

const char *svg_order_color(int order)
{
	return order_colors[order % 11];
}

void svg_fragmentation(FILE *f, const struct report *r)
{
	struct frame fr = {0, 1, 0};
	double max = 1;

	if (!r->nfrag)
		return;
	fr.t0 = r->frag[0].t_ms;
	fr.t1 = r->frag[r->nfrag - 1].t_ms;
	for (size_t i = 0; i < r->nfrag; i++)
		for (int o = 0; o < r->frag_orders; o++)
			max = log_count(r->frag[i].blocks[o]) > max
				  ? log_count(r->frag[i].blocks[o])
				  : max;
	fprintf(f,
		"<svg class=\"fragmentation\" xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" "
		"height=\"%d\" viewBox=\"0 0 %d %d\" role=\"img\" aria-label=\"free blocks by "
		"order\">\n",
		W, H, W, H);
	frame_box(f, &fr);
	for (int k = 0; k <= (int)max; k++)
		fprintf(
		    f,
		    "<text x=\"%d\" y=\"%.1f\" font-size=\"11\" text-anchor=\"end\">1e%d</text>\n",
		    LEFT - 4, y_of(k, max) + 3, k);
	for (int o = 0; o < r->frag_orders; o++) {
		size_t step = r->nfrag > MAX_BUCKETS ? r->nfrag / MAX_BUCKETS + 1 : 1;

		fprintf(f, "<polyline data-order=\"%d\" fill=\"none\" stroke=\"%s\" points=\"", o,
			order_colors[o % 11]);
		for (size_t i = 0; i < r->nfrag; i += step)
			fprintf(f, "%.1f,%.1f ", x_of(&fr, r->frag[i].t_ms),
				y_of(log_count(r->frag[i].blocks[o]), max));
		fprintf(f, "\"><title>order %d: %llu free blocks at the end</title></polyline>\n",
			o, (unsigned long long)r->frag[r->nfrag - 1].blocks[o]);
	}
	fputs("</svg>\n", f);
}

static const char *const shatter_colors[] = {"#7d3c98", "#c0392b", "#d68910"};
static const char *const shatter_names[] = {"shattered", "failed", "discarded"};

const char *svg_shatter_color(int i)
{
	return shatter_colors[i % 3];
}

static uint64_t shatter_value(const struct report_shatter_point *p, int i)
{
	return i == 0 ? p->shattered : i == 1 ? p->failed : p->discarded;
}

/* The highest count of any line: the chart's linear scale (at least 1). */
static double shatter_max(const struct report_tao *t)
{
	uint64_t max = 1;

	for (size_t i = 0; i < t->nseries; i++)
		for (int k = 0; k < 3; k++)
			if (shatter_value(&t->series[i], k) > max)
				max = shatter_value(&t->series[i], k);
	return (double)max;
}

void svg_shatter(FILE *f, const struct report *r)
{
	const struct report_tao *t = &r->tao;
	size_t step = t->nseries > MAX_BUCKETS ? t->nseries / MAX_BUCKETS + 1 : 1;
	struct frame fr;
	double max = shatter_max(t);

	if (!t->nseries)
		return;
	fr = (struct frame){t->series[0].t_ms, t->series[t->nseries - 1].t_ms, 0};
	fprintf(f,
		"<svg class=\"shatter\" xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" "
		"height=\"%d\" viewBox=\"0 0 %d %d\" role=\"img\" aria-label=\"THPs shattered "
		"over time\" data-points=\"%zu\">\n",
		W, H, W, H, t->nseries);
	frame_box(f, &fr);
	fprintf(f, "<text x=\"%d\" y=\"%d\" font-size=\"11\" text-anchor=\"end\">%.0f</text>\n",
		LEFT - 4, TOP + 8, max);
	for (int k = 0; k < 3; k++) {
		const struct report_shatter_point *last = &t->series[t->nseries - 1];

		/* Steps: a counter holds its value until the next batch that changed it. */
		fprintf(f, "<polyline data-result=\"%s\" fill=\"none\" stroke=\"%s\" points=\"",
			shatter_names[k], shatter_colors[k]);
		for (size_t i = 0; i < t->nseries; i += step) {
			double y = y_of((double)shatter_value(&t->series[i], k), max);

			if (i)
				fprintf(f, "%.1f,%.1f ", x_of(&fr, t->series[i].t_ms),
					y_of((double)shatter_value(&t->series[i - 1], k), max));
			fprintf(f, "%.1f,%.1f ", x_of(&fr, t->series[i].t_ms), y);
		}
		fprintf(f, "\"><title>%llu %s at the end</title></polyline>\n",
			(unsigned long long)shatter_value(last, k), shatter_names[k]);
	}
	fputs("</svg>\n", f);
}
