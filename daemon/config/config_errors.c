// SPDX-License-Identifier: GPL-2.0
/*
 * The errors a configuration read collects: each is file:line and a
 * message, kept up to a fixed count (the total is still counted), and
 * printed together so that one run shows all of them. Every reader in
 * this folder adds to them; none of them calls back into the others.
 */
#include <stdarg.h>
#include <stdio.h>

#include "config.h"
#include "config_internal.h"

void config_error_add(struct config_parse *p, const char *fmt, ...)
{
	struct config_errors *errs = p->errs;
	struct config_error *e;
	va_list ap;

	errs->total++;
	if (errs->count >= (int)(sizeof(errs->items) / sizeof(errs->items[0])))
		return;
	e = &errs->items[errs->count++];
	snprintf(e->file, sizeof(e->file), "%s", p->file);
	e->line = p->line;
	va_start(ap, fmt);
	vsnprintf(e->msg, sizeof(e->msg), fmt, ap);
	va_end(ap);
}

void config_error_format(const struct config_error *e, char *buf, size_t len)
{
	if (e->line > 0)
		snprintf(buf, len, "%s:%d: %s", e->file, e->line, e->msg);
	else
		snprintf(buf, len, "%s: %s", e->file, e->msg);
}

void config_errors_print(const struct config_errors *errs)
{
	for (int i = 0; i < errs->count; i++) {
		char line[PATH_MAX + 300];

		config_error_format(&errs->items[i], line, sizeof(line));
		fprintf(stderr, "%s\n", line);
	}
	if (errs->total > errs->count)
		fprintf(stderr, "(%d more errors not shown)\n", errs->total - errs->count);
}
