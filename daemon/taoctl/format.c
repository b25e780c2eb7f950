// SPDX-License-Identifier: GPL-2.0
#include "format.h"

#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "taod/json_fields.h"
#include "taod/utf8.h"

const char *fmt_bytes(char *buf, size_t len, uint64_t bytes)
{
	static const char *const units[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB"};
	double v = (double)bytes;
	int u = 0;

	while (v >= 1024 && u < 5) {
		v /= 1024;
		u++;
	}
	if (u == 0)
		snprintf(buf, len, "%llu B", (unsigned long long)bytes);
	else
		snprintf(buf, len, "%.1f %s", v, units[u]);
	return buf;
}

const char *fmt_pct(char *buf, size_t len, struct json_object *v)
{
	if (!v || json_object_is_type(v, json_type_null))
		snprintf(buf, len, "-");
	else
		snprintf(buf, len, "%.1f%%", json_object_get_double(v));
	return buf;
}

struct json_object *jget(struct json_object *o, const char *key)
{
	struct json_object *v = NULL;

	json_object_object_get_ex(o, key, &v);
	return v;
}

uint64_t jget_u64(struct json_object *o, const char *key)
{
	return json_object_get_uint64(jget(o, key));
}

double jget_double(struct json_object *o, const char *key)
{
	return json_object_get_double(jget(o, key));
}

const char *jget_str(struct json_object *o, const char *key)
{
	const char *s = json_object_get_string(jget(o, key));

	return s ? s : "-";
}

const char *jget_text(struct json_object *o, const char *key)
{
	static char *ring[16];
	static unsigned next;
	char **slot = &ring[next++ % 16];

	free(*slot);
	*slot = text_escape_dup(jget_str(o, key), false);
	return *slot ? *slot : "?";
}

void print_json(struct json_object *o)
{
	char *text = json_to_text(o, JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_NOSLASHESCAPE);

	puts(text ? text : "null");
	free(text);
}

int column_width(struct json_object *rows, const char *key, int min)
{
	int w = min;

	for (size_t i = 0; i < json_object_array_length(rows); i++) {
		int n = (int)strlen(jget_text(json_object_array_get_idx(rows, i), key));

		w = n > w ? n : w;
	}
	return w;
}
