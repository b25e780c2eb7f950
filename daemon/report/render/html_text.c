// SPDX-License-Identifier: GPL-2.0
/*
 * Text placed in the HTML report: markup escaped, ill-formed UTF-8
 * replaced, so that no name a tenant chose can add markup.
 */
#include <assert.h>
#include <stdio.h>
#include <stdlib.h>

#include "report/report.h"
#include "common/utf8.h"

/* Text as HTML: ill-formed UTF-8 as U+FFFD, as in the JSON report; markup escaped. */
void html_text(FILE *f, const char *text)
{
	assert(f);
	assert(text);

	char *clean = utf8_sanitize_dup(text);

	for (const char *s = clean ? clean : "?"; *s; s++) {
		switch (*s) {
		case '&':
			fputs("&amp;", f);
			break;
		case '<':
			fputs("&lt;", f);
			break;
		case '>':
			fputs("&gt;", f);
			break;
		case '"':
			fputs("&quot;", f);
			break;
		case '\'':
			fputs("&#39;", f);
			break;
		default:
			fputc(*s, f);
		}
	}
	free(clean);
}
