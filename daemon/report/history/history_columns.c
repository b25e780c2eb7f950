// SPDX-License-Identifier: GPL-2.0
/* The samples table's counter columns as SQL text, from the counter list. */
#include "history_columns.h"

#include <stdlib.h>

void hist_columns(FILE *f, const struct cg_counter *t, size_t n, int from, int to, const char *fmt,
		  const char *sep)
{
	const char *between = "";

	/* thp_alloc is derived (fault + collapse), a column since version 1. */
	if (from <= 1 && to >= 1) {
		fprintf(f, fmt, "thp_alloc");
		between = sep;
	}
	for (size_t i = 0; i < n; i++) {
		if (!hist_kept(&t[i], to) || t[i].history < from)
			continue;
		fputs(between, f);
		fprintf(f, fmt, t[i].json);
		between = sep;
	}
}

/* The columns of versions @from to @to through @fmt, then through @dfmt (their deltas). */
static void with_deltas(FILE *f, const struct cg_counter *t, size_t n, int from, int to,
			const char *fmt, const char *dfmt)
{
	hist_columns(f, t, n, from, to, fmt, ", ");
	fputs(", ", f);
	hist_columns(f, t, n, from, to, dfmt, ", ");
}

/* SQL text being written: a memstream and its buffer. */
struct sql_text {
	FILE *f;
	char *buf;
	size_t len;
};

/* Opens @s with @head written. false on ENOMEM. */
static bool sql_begin(struct sql_text *s, const char *head)
{
	s->buf = NULL;
	s->f = open_memstream(&s->buf, &s->len);
	if (s->f)
		fputs(head, s->f);
	return s->f;
}

/* @s's text with @tail, malloc'd; NULL if it could not be written. */
static char *sql_end(struct sql_text *s, const char *tail)
{
	fputs(tail, s->f);
	if (fclose(s->f)) {
		free(s->buf);
		return NULL;
	}
	return s->buf;
}

char *hist_schema_step(const struct cg_counter *t, size_t n, int version, const char *before,
		       const char *after)
{
	struct sql_text s;

	if (!sql_begin(&s, before))
		return NULL;
	if (version == 1)
		with_deltas(s.f, t, n, 1, 1, "%s INTEGER NOT NULL", "d_%s INTEGER NOT NULL");
	else /* NOT NULL needs a default for the rows already there. */
		hist_columns(s.f, t, n, version, version,
			     "ALTER TABLE samples ADD COLUMN %1$s INTEGER NOT NULL DEFAULT 0;"
			     "ALTER TABLE samples ADD COLUMN d_%1$s INTEGER NOT NULL DEFAULT 0;",
			     "");
	return sql_end(&s, after ? after : "");
}

char *hist_insert_sample_sql(const struct cg_counter *t, size_t n, int version)
{
	struct sql_text s;

	/* Named columns: a column a later version added sits after `class`. */
	if (!sql_begin(&s, "INSERT OR REPLACE INTO samples(cg, t_ms, run, interval_ms, anon_bytes,"
			   " thp_bytes, coverage_pct, "))
		return NULL;
	with_deltas(s.f, t, n, 1, version, "%s", "d_%s");
	fputs(", class) VALUES(?, ?, ?, ?, ?, ?, ?, ", s.f);
	with_deltas(s.f, t, n, 1, version, "?", "?");
	return sql_end(&s, ", ?)");
}

char *hist_columns_sql(const struct cg_counter *t, size_t n, int version, const char *head,
		       const char *fmt, const char *tail)
{
	struct sql_text s;

	if (!sql_begin(&s, head))
		return NULL;
	hist_columns(s.f, t, n, 1, version, fmt, ", ");
	return sql_end(&s, tail);
}

char *hist_last_sample_sql(const struct cg_counter *t, size_t n, int version)
{
	return hist_columns_sql(t, n, version, "SELECT ", "%s",
				", t_ms FROM samples WHERE cg = ?1 ORDER BY t_ms DESC LIMIT 1");
}

/* The event columns of versions @from to @to through @fmt (%1$s: the event's json), @sep between.
 */
static void size_columns(FILE *f, const struct size_event *t, size_t n, int from, int to,
			 const char *fmt, const char *sep)
{
	const char *between = "";

	for (size_t i = 0; i < n; i++) {
		if (!hist_size_kept(&t[i], to) || t[i].history < from)
			continue;
		fputs(between, f);
		fprintf(f, fmt, t[i].json);
		between = sep;
	}
}

char *hist_size_schema_step(const struct size_event *t, size_t n, int version, const char *before,
			    const char *after)
{
	struct sql_text s;

	if (!sql_begin(&s, before))
		return NULL;
	if (version == HIST_SIZE_TABLE_VERSION)
		size_columns(s.f, t, n, 1, version, "d_%s INTEGER NOT NULL", ", ");
	else
		size_columns(s.f, t, n, version, version,
			     "ALTER TABLE size_samples ADD COLUMN d_%s INTEGER NOT NULL DEFAULT 0;",
			     "");
	return sql_end(&s, after ? after : "");
}

char *hist_size_insert_sql(const struct size_event *t, size_t n, int version)
{
	struct sql_text s;

	if (!sql_begin(&s, "INSERT OR REPLACE INTO size_samples(cg, t_ms, size_kb, mapped_bytes,"
			   " coverage_pct, "))
		return NULL;
	size_columns(s.f, t, n, 1, version, "d_%s", ", ");
	fputs(") VALUES(?, ?, ?, ?, ?, ", s.f);
	size_columns(s.f, t, n, 1, version, "?", ", ");
	return sql_end(&s, ")");
}

char *hist_size_sums_sql(const struct size_event *t, size_t n, int version)
{
	struct sql_text s;

	if (!sql_begin(&s, "SELECT size_kb, "))
		return NULL;
	size_columns(s.f, t, n, 1, version, "sum(d_%s)", ", ");
	return sql_end(&s, " FROM size_samples WHERE t_ms > ?1 AND t_ms <= ?2 AND cg = ?3"
			   " GROUP BY size_kb");
}
