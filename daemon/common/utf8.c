// SPDX-License-Identifier: GPL-2.0
#include "utf8.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define REPLACEMENT "\xef\xbf\xbd" /* U+FFFD */

static bool continuation(unsigned char c)
{
	return (c & 0xc0) == 0x80;
}

/* U+0080..U+009F (C1 controls: CSI, OSC...) drive terminals as ESC does. */
static bool c1_control(const unsigned char *u)
{
	return u[0] == 0xc2 && u[1] >= 0x80 && u[1] <= 0x9f;
}

size_t utf8_sequence_len(const char *s)
{
	const unsigned char *u = (const unsigned char *)s;

	if (u[0] == 0)
		return 0;
	if (u[0] < 0x80)
		return 1;
	if (u[0] >= 0xc2 && u[0] <= 0xdf)
		return continuation(u[1]) ? 2 : 0;
	if (u[0] >= 0xe0 && u[0] <= 0xef) {
		/* No overlongs (e0 80..9f) and no surrogates (ed a0..bf). */
		if ((u[0] == 0xe0 && u[1] < 0xa0) || (u[0] == 0xed && u[1] > 0x9f))
			return 0;
		return continuation(u[1]) && continuation(u[2]) ? 3 : 0;
	}
	if (u[0] >= 0xf0 && u[0] <= 0xf4) {
		/* No overlongs (f0 80..8f) and nothing above U+10FFFF (f4 90..). */
		if ((u[0] == 0xf0 && u[1] < 0x90) || (u[0] == 0xf4 && u[1] > 0x8f))
			return 0;
		return continuation(u[1]) && continuation(u[2]) && continuation(u[3]) ? 4 : 0;
	}
	return 0;
}

char *utf8_sanitize_dup(const char *s)
{
	size_t n = strlen(s), o = 0;
	char *out = malloc(3 * n + 1); /* every byte may become U+FFFD */

	if (!out)
		return NULL;
	while (*s) {
		size_t k = utf8_sequence_len(s);

		if (k) {
			memcpy(out + o, s, k);
			o += k;
			s += k;
		} else {
			memcpy(out + o, REPLACEMENT, 3);
			o += 3;
			s++;
		}
	}
	out[o] = '\0';
	return out;
}

void text_escape(const char *in, char *out, size_t len, bool quotes)
{
	size_t o = 0;

	if (!len)
		return;
	while (*in) {
		unsigned char c = (unsigned char)*in;
		size_t k = utf8_sequence_len(in);
		char esc[5];
		const char *piece = in;
		size_t plen = k;

		if (quotes && (c == '"' || c == '\\')) {
			snprintf(esc, sizeof(esc), "\\%c", c);
			piece = esc, plen = 2;
		} else if (!k || c < 0x20 || c == 0x7f || c1_control((const unsigned char *)in)) {
			snprintf(esc, sizeof(esc), "\\x%02x", c);
			piece = esc, plen = 4, k = 1;
		}
		if (o + plen >= len)
			break;
		memcpy(out + o, piece, plen);
		o += plen;
		in += k ? k : 1;
	}
	out[o] = '\0';
}

char *text_escape_dup(const char *in, bool quotes)
{
	size_t len = 4 * strlen(in) + 1; /* "\xNN" for every byte at worst */
	char *out = malloc(len);

	if (out)
		text_escape(in, out, len, quotes);
	return out;
}

int text_fputs(const char *in, FILE *f)
{
	char *shown = text_escape_dup(in ? in : "", false);
	int rc = fputs(shown ? shown : "?", f);

	free(shown);
	return rc;
}
