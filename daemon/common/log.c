// SPDX-License-Identifier: GPL-2.0
#include "log.h"
#include "utf8.h"

#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *log_ident = "taod";
static int log_max_level = LOG_INFO;
static bool log_to_journal;

void log_init(const char *ident)
{
	log_ident = ident;
	/* journald parses "<N>" prefixes on its stream connections. */
	log_to_journal = getenv("JOURNAL_STREAM") != NULL;
}

void log_set_max_level(int level)
{
	log_max_level = level;
}

void log_msg(int level, const char *fmt, ...)
{
	va_list ap;

	if (level > log_max_level)
		return;
	char msg[2048], safe[4096];

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	/* One record per line: a newline in a logged name must not forge another. */
	text_escape(msg, safe, sizeof(safe), false);
	if (log_to_journal)
		fprintf(stderr, "<%d>%s\n", level, safe);
	else
		fprintf(stderr, "%s: %s\n", log_ident, safe);
}

int log_errno(int level, int r, const char *what)
{
	if (r < 0)
		log_msg(level, "%s: %s", what, strerror(-r));
	return r;
}
