// SPDX-License-Identifier: GPL-2.0
/*
 * Multi-size THP in `taoctl report` (issue 17): each cgroup's large folios
 * by size over the window, read from size_samples (schema version 3; the
 * bytes held per size and their coverage, version 4; each per-size event
 * from the version its row of TAOD_SIZE_EVENTS names), and their
 * renderings in every format.
 */
#include <assert.h>
#include <errno.h>
#include <json-c/json.h>
#include <stdlib.h>

#include "report/history/history_columns.h"
#include "report/history/report_internal.h"
#include "common/json_fields.h"
#include "report_sizes.h"
#include "common/utf8.h"

/* The entry of @size_kb in @c's sizes, made (0 of each event the database
 * of schema @version keeps, nothing held) if none. */
static struct report_size *size_entry(struct report_cgroup *c, unsigned size_kb, int version)
{
	struct report_size *s;

	for (size_t k = 0; k < c->nsizes; k++)
		if (c->sizes[k].size_kb == size_kb)
			return &c->sizes[k];
	s = push(&c->sizes, &c->nsizes, sizeof(*s));
	if (s) {
		*s = (struct report_size){.size_kb = size_kb, .mapped_bytes = -1};
		s->coverage_pct = -1;
		for (int ev = 0; ev < SIZE_NEVENTS; ev++)
			s->counted[ev] = hist_size_kept(&size_events[ev], version);
	}
	return s;
}

static int load_counts(struct loader *l, int64_t cg, struct report_cgroup *c)
{
	char *sql = hist_size_sums_sql(size_events, SIZE_NEVENTS, l->version);
	sqlite3_stmt *st = sql ? prepare_window(l, sql) : NULL;

	free(sql);
	if (!st)
		return -EIO;
	sqlite3_bind_int64(st, 3, cg);
	while (sqlite3_step(st) == SQLITE_ROW) {
		struct report_size *s =
		    size_entry(c, (unsigned)sqlite3_column_int64(st, 0), l->version);
		int col = 1;

		if (!s)
			break;
		/* The columns are the events the database keeps, in the list's order. */
		for (int ev = 0; ev < SIZE_NEVENTS; ev++)
			if (s->counted[ev])
				s->count[ev] = (uint64_t)sqlite3_column_int64(st, col++);
	}
	sqlite3_finalize(st);
	return 0;
}

/* Held bytes per size at the window's end: each size's last row up to
 * then (rows are written only when something moved). A size none of whose
 * folios is held any more shows 0 only if it moved in the window. */
static int load_held(struct loader *l, int64_t cg, struct report_cgroup *c)
{
	sqlite3_stmt *st = prepare_window(
	    l, "SELECT s.size_kb, s.mapped_bytes, s.coverage_pct FROM size_samples s"
	       " WHERE s.cg = ?3 AND s.mapped_bytes IS NOT NULL AND s.t_ms = (SELECT max(t_ms)"
	       " FROM size_samples z WHERE z.cg = s.cg AND z.size_kb = s.size_kb"
	       " AND z.mapped_bytes IS NOT NULL AND z.t_ms <= ?2)"
	       " AND (s.mapped_bytes > 0 OR s.t_ms > ?1)");

	if (!st)
		return -EIO;
	sqlite3_bind_int64(st, 3, cg);
	while (sqlite3_step(st) == SQLITE_ROW) {
		struct report_size *s =
		    size_entry(c, (unsigned)sqlite3_column_int64(st, 0), l->version);

		if (!s)
			break;
		s->mapped_bytes = sqlite3_column_int64(st, 1);
		if (sqlite3_column_type(st, 2) != SQLITE_NULL)
			s->coverage_pct = sqlite3_column_double(st, 2);
	}
	sqlite3_finalize(st);
	return 0;
}

static int by_size(const void *a, const void *b)
{
	unsigned x = ((const struct report_size *)a)->size_kb;
	unsigned y = ((const struct report_size *)b)->size_kb;

	return x < y ? -1 : x > y;
}

int report_load_sizes(struct loader *l, int64_t cg, struct report_cgroup *c)
{
	if (l->version < 3)
		return 0; /* an older database: nothing was counted per size */
	if (load_counts(l, cg, c) || (l->version >= 4 && load_held(l, cg, c)))
		return -EIO;
	if (c->nsizes)
		qsort(c->sizes, c->nsizes, sizeof(*c->sizes), by_size);
	return 0;
}

double report_size_broken_pct(const struct report_size *s)
{
	uint64_t made = 0, broken = 0;

	for (int ev = 0; ev < SIZE_NEVENTS; ev++) {
		if (size_events[ev].made)
			made += s->count[ev];
		else
			broken += s->count[ev];
	}
	if (!made)
		return -1;
	return 100.0 * (double)broken / (double)made;
}

struct json_object *report_sizes_json(const struct report_cgroup *c)
{
	struct json_object *list = json_object_new_array();

	for (size_t i = 0; i < c->nsizes; i++) {
		const struct report_size *s = &c->sizes[i];
		struct json_object *o = json_object_new_object();

		json_add_u64(o, "size_kb", s->size_kb);
		for (int ev = 0; ev < SIZE_NEVENTS; ev++)
			if (s->counted[ev])
				json_add_u64(o, size_events[ev].json, s->count[ev]);
			else
				json_add(o, size_events[ev].json, NULL);
		json_add_known(o, "broken_pct", report_size_broken_pct(s));
		if (s->mapped_bytes >= 0)
			json_add_i64(o, "mapped_bytes", s->mapped_bytes);
		else
			json_add(o, "mapped_bytes", NULL);
		json_add_known(o, "coverage_pct", s->coverage_pct);
		json_object_array_add(list, o);
	}
	return list;
}

/* "32 faulted, 8 partial, 4 split": the events @s counts, in the list's order. */
static void event_words(FILE *f, const struct report_size *s)
{
	const char *sep = "";

	for (int ev = 0; ev < SIZE_NEVENTS; ev++) {
		if (!s->counted[ev])
			continue;
		fprintf(f, "%s%llu %s", sep, (unsigned long long)s->count[ev],
			size_events[ev].word);
		sep = ", ";
	}
}

void report_sizes_table(FILE *f, const struct report *r)
{
	bool header = false;

	for (size_t i = 0; i < r->ncgroups; i++) {
		const struct report_cgroup *c = &r->cgroups[i];
		char *path = c->nsizes ? text_escape_dup(c->path, false) : NULL;

		for (size_t k = 0; k < c->nsizes; k++) {
			const struct report_size *s = &c->sizes[k];
			double pct = report_size_broken_pct(s);

			if (!header) {
				fputs("\nlarge folios by size (", f);
				size_events_list(f, offsetof(struct size_event, phrase), "%s",
						 ", ");
				fputs(" per cgroup over the window; held at its end):\n", f);
			}
			header = true;
			fprintf(f, "  %s  %u KiB: ", path ? path : "?", s->size_kb);
			event_words(f, s);
			if (pct >= 0)
				fprintf(f, " (%.1f%% broken)", pct);
			if (s->mapped_bytes >= 0)
				fprintf(f, ", %lld KiB held", (long long)s->mapped_bytes / 1024);
			if (s->coverage_pct >= 0)
				fprintf(f, " (%.1f%% of anon)", s->coverage_pct);
			fputc('\n', f);
		}
		free(path);
	}
}

/* A 100-pixel bar, @pct of it in @fill and the rest in @rest, and the figure. */
static void pct_bar(FILE *f, double pct, const char *fill, const char *rest)
{
	double bar = pct < 0 ? 0 : pct > 100 ? 100 : pct;

	fprintf(f,
		"<svg width=\"104\" height=\"10\"><rect width=\"%.0f\" height=\"10\" "
		"fill=\"%s\"/><rect x=\"%.0f\" width=\"%.0f\" height=\"10\" "
		"fill=\"%s\"/></svg> ",
		bar, fill, bar, 100 - bar, rest);
	if (pct >= 0)
		fprintf(f, "%.1f%%", pct);
	else
		fputs("-", f);
}

void report_sizes_html(FILE *f, const struct report_cgroup *c)
{
	if (!c->nsizes)
		return;
	fputs("<table class=\"sizes\"><tr><th>folio size</th>", f);
	size_events_list(f, offsetof(struct size_event, title), "<th>%s</th>", "");
	fputs("<th>broken</th><th>held</th><th>coverage</th></tr>\n", f);
	for (size_t k = 0; k < c->nsizes; k++) {
		const struct report_size *s = &c->sizes[k];

		fprintf(f, "<tr><td>%u KiB</td>", s->size_kb);
		for (int ev = 0; ev < SIZE_NEVENTS; ev++)
			if (s->counted[ev])
				fprintf(f, "<td>%llu</td>", (unsigned long long)s->count[ev]);
			else
				fputs("<td>-</td>", f);
		fputs("<td>", f);
		pct_bar(f, report_size_broken_pct(s), "#c0392b", "#2471a3");
		if (s->mapped_bytes >= 0)
			fprintf(f, "</td><td>%lld KiB</td><td>", (long long)s->mapped_bytes / 1024);
		else
			fputs("</td><td>-</td><td>", f);
		pct_bar(f, s->coverage_pct, "#27ae60", "#d5d8dc");
		fputs("</td></tr>\n", f);
	}
	fputs("</table>\n", f);
}

int report_write_sizes_csv(FILE *f, const struct report *r)
{
	assert(f);
	assert(r);
	fputs("cgroup,cgroup_id,size_kb,", f);
	size_events_list(f, offsetof(struct size_event, json), "%s,", "");
	fputs("mapped_bytes,coverage_pct\r\n", f);
	for (size_t i = 0; i < r->ncgroups; i++) {
		const struct report_cgroup *c = &r->cgroups[i];

		for (size_t k = 0; k < c->nsizes; k++) {
			csv_field(f, c->path);
			const struct report_size *s = &c->sizes[k];

			fprintf(f, ",%llu,%u,", (unsigned long long)c->cgroup_id, s->size_kb);
			for (int ev = 0; ev < SIZE_NEVENTS; ev++) /* empty: not counted */
				if (s->counted[ev])
					fprintf(f, "%llu,", (unsigned long long)s->count[ev]);
				else
					fputc(',', f);
			if (s->mapped_bytes >= 0)
				fprintf(f, "%lld", (long long)s->mapped_bytes);
			fputc(',', f);
			if (s->coverage_pct >= 0)
				fprintf(f, "%.2f", s->coverage_pct);
			fputs("\r\n", f);
		}
	}
	return ferror(f) ? -1 : 0;
}
