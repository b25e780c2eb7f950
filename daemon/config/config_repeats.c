// SPDX-License-Identifier: GPL-2.0
/*
 * Repeats within one file. INI readers differ on a section or key given
 * twice (merge, first wins, last wins), so a file that does it says two
 * things and taod refuses it, naming both lines. Across files a repeat is
 * the point: a later drop-in overrides the main file and earlier drop-ins.
 * Each file's sections and keys are collected while it is read and sorted
 * once at its end: n log n, however many lines the file has.
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config_internal.h"

struct config_seen {
	char *section; /* "policy NAME" however the header spaced it */
	char *key;     /* NULL: the [section] line itself */
	int line;
};

/* "policy   web" and "policy web" are one section. */
static char *section_identity(const char *section)
{
	const char *name = section + 6;
	char *s = NULL;

	if (!config_is_policy_section(section))
		return strdup(section);
	while (isspace((unsigned char)*name))
		name++;
	return asprintf(&s, "policy %s", name) < 0 ? NULL : s;
}

void config_seen_add(struct config_parse *p, const char *section, const char *key)
{
	struct config_seen *e;

	if (p->nseen == p->seen_cap) {
		size_t cap = p->seen_cap ? p->seen_cap * 2 : 64;
		struct config_seen *v = reallocarray(p->seen, cap, sizeof(*v));

		if (!v)
			goto nomem;
		p->seen = v;
		p->seen_cap = cap;
	}
	e = &p->seen[p->nseen];
	e->section = section_identity(section);
	e->key = key ? strdup(key) : NULL;
	e->line = p->line;
	if (!e->section || (key && !e->key)) {
		free(e->section);
		free(e->key);
		goto nomem;
	}
	p->nseen++;
	return;
nomem:
	config_error_add(p, "out of memory while checking for repeated keys");
}

static int seen_cmp(const void *a, const void *b)
{
	const struct config_seen *x = a, *y = b;
	int c = strcmp(x->section, y->section);

	if (c)
		return c;
	if (!x->key != !y->key)
		return x->key ? 1 : -1; /* the section line before its keys */
	c = x->key ? strcmp(x->key, y->key) : 0;
	return c ? c : (x->line > y->line) - (x->line < y->line);
}

static bool same(const struct config_seen *x, const struct config_seen *y)
{
	return !strcmp(x->section, y->section) && !x->key == !y->key &&
	       (!x->key || !strcmp(x->key, y->key));
}

static void report_repeat(struct config_parse *p, const struct config_seen *first,
			  const struct config_seen *again)
{
	p->line = again->line;
	if (!again->key)
		config_error_add(p,
				 "[%s] appears again (first at line %d): write each section once "
				 "per file; a later drop-in may set its keys again",
				 again->section, first->line);
	else
		config_error_add(p,
				 "[%s] %s is set again (first at line %d): set each key once per "
				 "file; a later drop-in may override it",
				 again->section, again->key, first->line);
}

void config_seen_check(struct config_parse *p)
{
	int line = p->line;

	if (p->nseen) /* qsort's base must not be NULL, even for none */
		qsort(p->seen, p->nseen, sizeof(*p->seen), seen_cmp);
	for (size_t i = 1, first = 0; i < p->nseen; i++) {
		if (!same(&p->seen[first], &p->seen[i]))
			first = i;
		else
			report_repeat(p, &p->seen[first], &p->seen[i]);
	}
	for (size_t i = 0; i < p->nseen; i++) {
		free(p->seen[i].section);
		free(p->seen[i].key);
	}
	free(p->seen);
	p->seen = NULL;
	p->nseen = p->seen_cap = 0;
	p->line = line;
}
