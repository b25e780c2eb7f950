// SPDX-License-Identifier: GPL-2.0
/*
 * One CSV field as RFC 4180 writes it: quoted when it holds a comma,
 * quote or line break, its quotes doubled.
 */
#include <assert.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report/history/report_internal.h"
#include "common/utf8.h"

static bool needs_quotes(const char *s)
{
	for (; *s; s++)
		if (*s == ',' || *s == '"' || (unsigned char)*s < 0x20 || *s == 0x7f)
			return true;
	return false;
}

/*
 * CSV is data: a field keeps its characters, as JSON does, and like JSON
 * has ill-formed UTF-8 replaced by U+FFFD (a spreadsheet refuses it).
 */
void csv_field(FILE *f, const char *text)
{
	assert(f);
	assert(text);

	char *clean = utf8_sanitize_dup(text);
	const char *s = clean ? clean : "?";

	if (!needs_quotes(s)) {
		fputs(s, f);
		free(clean);
		return;
	}
	fputc('"', f);
	for (; *s; s++) {
		if (*s == '"')
			fputc('"', f);
		fputc(*s, f);
	}
	fputc('"', f);
	free(clean);
}
