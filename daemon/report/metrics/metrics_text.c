// SPDX-License-Identifier: GPL-2.0
/*
 * The Prometheus text format's pieces every metrics file writes: a
 * family's HELP and TYPE lines, and label values escaped.
 */
#include <assert.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "metrics_internal.h"
#include "common/utf8.h"

void prom_escape_label(const char *in, char *out, size_t len)
{
	assert(in);
	assert(out);
	assert(len > 0); /* room for the NUL at least */

	size_t o = 0;

	while (*in) {
		size_t k = utf8_sequence_len(in);
		bool esc = *in == '\\' || *in == '"' || *in == '\n';
		size_t need = esc ? 2 : k ? k : 3;

		if (o + need >= len)
			break;
		if (esc) {
			out[o++] = '\\';
			out[o++] = *in == '\n' ? 'n' : *in;
		} else if (!k) {
			memcpy(out + o, "\xef\xbf\xbd", 3); /* labels must be UTF-8 */
			o += 3;
		} else {
			memcpy(out + o, in, k);
			o += k;
		}
		in += k ? k : 1;
	}
	out[o] = '\0';
}

void metrics_family(FILE *f, const char *name, const char *type, const char *help)
{
	fprintf(f, "# HELP %s %s\n# TYPE %s %s\n", name, help, name, type);
}
