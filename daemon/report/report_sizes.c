// SPDX-License-Identifier: GPL-2.0
/*
 * Multi-size THP in `taoctl report` (issue 17): each cgroup's large folios
 * by size over the window, read from size_samples (schema version 3), and
 * their renderings in every format.
 */
#include <errno.h>
#include <json-c/json.h>
#include <stdlib.h>

#include "report_internal.h"
#include "taod/json_fields.h"
#include "report_sizes.h"
#include "common/utf8.h"

int report_load_sizes(struct loader *l, int64_t cg, struct report_cgroup *c)
{
	sqlite3_stmt *st;

	if (l->version < 3)
		return 0; /* an older database: nothing was counted per size */
	st = prepare_window(l, "SELECT size_kb, sum(d_fault_alloc), sum(d_partial_unmap),"
			       " sum(d_split) FROM size_samples"
			       " WHERE t_ms > ?1 AND t_ms <= ?2 AND cg = ?3"
			       " GROUP BY size_kb ORDER BY size_kb");
	if (!st)
		return -EIO;
	sqlite3_bind_int64(st, 3, cg);
	while (sqlite3_step(st) == SQLITE_ROW) {
		struct report_size *s = push(&c->sizes, &c->nsizes, sizeof(*s));

		if (!s)
			break;
		s->size_kb = (unsigned)sqlite3_column_int64(st, 0);
		s->fault_alloc = (uint64_t)sqlite3_column_int64(st, 1);
		s->partial_unmap = (uint64_t)sqlite3_column_int64(st, 2);
		s->split = (uint64_t)sqlite3_column_int64(st, 3);
	}
	sqlite3_finalize(st);
	return 0;
}

double report_size_broken_pct(const struct report_size *s)
{
	if (!s->fault_alloc)
		return -1;
	return 100.0 * (double)(s->partial_unmap + s->split) / (double)s->fault_alloc;
}

struct json_object *report_sizes_json(const struct report_cgroup *c)
{
	struct json_object *list = json_object_new_array();

	for (size_t i = 0; i < c->nsizes; i++) {
		const struct report_size *s = &c->sizes[i];
		struct json_object *o = json_object_new_object();

		json_add_u64(o, "size_kb", s->size_kb);
		json_add_u64(o, "fault_alloc", s->fault_alloc);
		json_add_u64(o, "partial_unmap", s->partial_unmap);
		json_add_u64(o, "split", s->split);
		json_add_known(o, "broken_pct", report_size_broken_pct(s));
		json_object_array_add(list, o);
	}
	return list;
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

			if (!header)
				fputs("\nlarge folios by size (faulted, left partially mapped, "
				      "split; "
				      "per cgroup over the window):\n",
				      f);
			header = true;
			fprintf(f, "  %s  %u KiB: %llu faulted, %llu partial, %llu split",
				path ? path : "?", s->size_kb, (unsigned long long)s->fault_alloc,
				(unsigned long long)s->partial_unmap, (unsigned long long)s->split);
			if (pct >= 0)
				fprintf(f, " (%.1f%% broken)", pct);
			fputc('\n', f);
		}
		free(path);
	}
}

void report_sizes_html(FILE *f, const struct report_cgroup *c)
{
	if (!c->nsizes)
		return;
	fputs("<table class=\"sizes\"><tr><th>folio size</th><th>faulted</th><th>partially "
	      "mapped</th><th>split</th><th>broken</th></tr>\n",
	      f);
	for (size_t k = 0; k < c->nsizes; k++) {
		const struct report_size *s = &c->sizes[k];
		double pct = report_size_broken_pct(s);
		double bar = pct < 0 ? 0 : pct > 100 ? 100 : pct;

		fprintf(f,
			"<tr><td>%u KiB</td><td>%llu</td><td>%llu</td><td>%llu</td><td>"
			"<svg width=\"104\" height=\"10\"><rect width=\"%.0f\" height=\"10\" "
			"fill=\"#c0392b\"/><rect x=\"%.0f\" width=\"%.0f\" height=\"10\" "
			"fill=\"#2471a3\"/></svg> ",
			s->size_kb, (unsigned long long)s->fault_alloc,
			(unsigned long long)s->partial_unmap, (unsigned long long)s->split, bar,
			bar, 100 - bar);
		if (pct >= 0)
			fprintf(f, "%.1f%%", pct);
		else
			fputs("-", f);
		fputs("</td></tr>\n", f);
	}
	fputs("</table>\n", f);
}

int report_write_sizes_csv(FILE *f, const struct report *r)
{
	fputs("cgroup,cgroup_id,size_kb,fault_alloc,partial_unmap,split\r\n", f);
	for (size_t i = 0; i < r->ncgroups; i++) {
		const struct report_cgroup *c = &r->cgroups[i];

		for (size_t k = 0; k < c->nsizes; k++) {
			csv_field(f, c->path);
			fprintf(f, ",%llu,%u,%llu,%llu,%llu\r\n", (unsigned long long)c->cgroup_id,
				c->sizes[k].size_kb, (unsigned long long)c->sizes[k].fault_alloc,
				(unsigned long long)c->sizes[k].partial_unmap,
				(unsigned long long)c->sizes[k].split);
		}
	}
	return ferror(f) ? -1 : 0;
}
