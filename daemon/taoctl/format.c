// SPDX-License-Identifier: GPL-2.0
#include "format.h"

#include <errno.h>
#include <json-c/json.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/json_fields.h"
#include "common/parse.h"
#include "common/pct_text.h"
#include "common/utf8.h"

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

const char *fmt_duration(char *buf, size_t len, uint64_t ms)
{
	static const struct {
		const char *suffix;
		uint64_t ms;
	} units[] = {{"d", 86400000}, {"h", 3600000}, {"m", 60000}, {"s", 1000}};

	for (size_t i = 0; ms && i < sizeof(units) / sizeof(units[0]); i++)
		if (ms % units[i].ms == 0) {
			snprintf(buf, len, "%llu%s", (unsigned long long)(ms / units[i].ms),
				 units[i].suffix);
			return buf;
		}
	snprintf(buf, len, ms ? "%llums" : "0s", (unsigned long long)ms);
	return buf;
}

const char *fmt_size(char *buf, size_t len, uint64_t bytes)
{
	static const char suffixes[] = "KMGTP";
	int u = -1;

	while (bytes && u < 4 && bytes % 1024 == 0) {
		bytes /= 1024;
		u++;
	}
	if (u < 0)
		snprintf(buf, len, "%llu", (unsigned long long)bytes);
	else
		snprintf(buf, len, "%llu%c", (unsigned long long)bytes, suffixes[u]);
	return buf;
}

int opt_size(const char *opt, const char *value, uint64_t *out)
{
	if (!parse_size_bytes(value, out) && *out)
		return 0;
	fprintf(stderr, "taoctl: %s \"%s\": expected a size such as 4096, 64K, 4M, 1G\n", opt,
		value);
	return -1;
}

int opt_positive(const char *opt, const char *value, long *out)
{
	char *end;

	errno = 0;
	*out = strtol(value, &end, 10);
	if (*value && !*end && !errno && *out >= 1 && *out <= INT32_MAX)
		return 0;
	fprintf(stderr, "taoctl: %s \"%s\": expected a positive number\n", opt, value);
	return -1;
}

int opt_glob(const char *opt, const char *glob)
{
	/* fnmatch without FNM_PATHNAME: '*', '?' and '[' may match the first '/'. */
	if (glob[0] && strchr("/*?[", glob[0]))
		return 0;
	fprintf(stderr,
		"taoctl: %s \"%s\": no cgroup path can match it: paths start with / (try "
		"\"/%s\" or \"*%s\")\n",
		opt, glob, glob, glob);
	return -1;
}

int opt_zone(const char *opt, const char *value)
{
	const char *comma = strchr(value, ',');
	char size[64];
	uint64_t n, order;
	double pct;
	bool ok = comma && (size_t)(comma - value) < sizeof(size);

	if (ok) {
		snprintf(size, sizeof(size), "%.*s", (int)(comma - value), value);
		ok = (strchr(size, '%') ? !parse_percent(size, &pct)
					: !parse_size_bytes(size, &n)) &&
		     !parse_u64(comma + 1, &order);
	}
	if (ok)
		return 0;
	fprintf(stderr, "taoctl: %s \"%s\": expected SIZE,ORDER (such as 512M,9 or 10%%,9)\n", opt,
		value);
	return -1;
}

/* taod sends null for a percentage it does not know, never a negative one. */
const char *fmt_pct(char *buf, size_t len, struct json_object *v)
{
	bool known = v && !json_object_is_type(v, json_type_null);

	return pct_text(buf, len, known ? json_object_get_double(v) : -1, "%");
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
