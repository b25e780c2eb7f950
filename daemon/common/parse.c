// SPDX-License-Identifier: GPL-2.0
#include "parse.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* Leading unsigned integer; *end points past it. */
static int leading_u64(const char *s, uint64_t *out, char **end)
{
	if (!s || !isdigit((unsigned char)*s))
		return -EINVAL;
	errno = 0;
	*out = strtoull(s, end, 10);
	return errno ? -ERANGE : 0;
}

static int mul_checked(uint64_t v, uint64_t m, uint64_t *out)
{
	if (m && v > UINT64_MAX / m)
		return -ERANGE;
	*out = v * m;
	return 0;
}

int parse_u64(const char *s, uint64_t *out)
{
	char *end;
	int r = leading_u64(s, out, &end);

	if (r)
		return r;
	return *end ? -EINVAL : 0;
}

int parse_duration_ms(const char *s, uint64_t *out_ms)
{
	static const struct {
		const char *suffix;
		uint64_t ms;
	} units[] = {
	    {"ms", 1},	    {"s", 1000},    {"", 1000},	     {"m", 60000},
	    {"min", 60000}, {"h", 3600000}, {"d", 86400000}, {"w", 604800000},
	};
	uint64_t v;
	char *end;
	int r = leading_u64(s, &v, &end);

	if (r)
		return r;
	for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++)
		if (!strcmp(end, units[i].suffix))
			return mul_checked(v, units[i].ms, out_ms);
	return -EINVAL;
}

int parse_size_bytes(const char *s, uint64_t *out)
{
	static const char suffixes[] = "BKMGTP";
	uint64_t v;
	char *end;
	int r = leading_u64(s, &v, &end);
	const char *p;

	if (r)
		return r;
	if (!*end)
		return mul_checked(v, 1, out);
	p = strchr(suffixes, toupper((unsigned char)*end));
	if (!p || (end[1] && strcasecmp(end + 1, "iB") && strcasecmp(end + 1, "B")))
		return -EINVAL;
	return mul_checked(v, 1ULL << (10 * (p - suffixes)), out);
}

int parse_bool(const char *s, bool *out)
{
	static const char *yes[] = {"1", "yes", "true", "on"};
	static const char *no[] = {"0", "no", "false", "off"};

	for (size_t i = 0; i < 4; i++) {
		if (!strcasecmp(s, yes[i])) {
			*out = true;
			return 0;
		}
		if (!strcasecmp(s, no[i])) {
			*out = false;
			return 0;
		}
	}
	return -EINVAL;
}

int parse_percent(const char *s, double *out)
{
	char *end;
	double v;

	if (!s || !*s)
		return -EINVAL;
	errno = 0;
	v = strtod(s, &end);
	if (errno || end == s || (*end && strcmp(end, "%")) || isnan(v))
		return -EINVAL;
	if (v < 0 || v > 100)
		return -ERANGE;
	*out = v;
	return 0;
}

int parse_mode(const char *s, unsigned *out)
{
	char *end;
	unsigned long v;

	if (!s || !*s)
		return -EINVAL;
	errno = 0;
	v = strtoul(s, &end, 8);
	if (errno || *end || v > 07777)
		return -EINVAL;
	*out = (unsigned)v;
	return 0;
}

int check_range(uint64_t v, uint64_t lo, uint64_t hi)
{
	return v >= lo && v <= hi ? 0 : -ERANGE;
}

void format_duration_ms(char *buf, size_t len, uint64_t ms)
{
	static const struct {
		const char *suffix;
		uint64_t ms;
	} units[] = {{"w", 604800000}, {"d", 86400000}, {"h", 3600000}, {"m", 60000}, {"s", 1000}};

	for (size_t i = 0; ms && i < sizeof(units) / sizeof(units[0]); i++)
		if (ms % units[i].ms == 0) {
			snprintf(buf, len, "%llu%s", (unsigned long long)(ms / units[i].ms),
				 units[i].suffix);
			return;
		}
	snprintf(buf, len, "%llums", (unsigned long long)ms);
}

void format_size_bytes(char *buf, size_t len, uint64_t bytes)
{
	static const char suffixes[] = "PTGMK";

	for (int i = 0; bytes && i < 5; i++) {
		uint64_t unit = 1ULL << (10 * (5 - i));

		if (bytes % unit == 0) {
			snprintf(buf, len, "%llu%c", (unsigned long long)(bytes / unit),
				 suffixes[i]);
			return;
		}
	}
	snprintf(buf, len, "%llu", (unsigned long long)bytes);
}
