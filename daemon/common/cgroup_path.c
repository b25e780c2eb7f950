// SPDX-License-Identifier: GPL-2.0
#include <limits.h>
#include <stdio.h>
#include <string.h>

#include "taod/cgroup_path.h"

static bool refuse(char *why, size_t len, const char *reason)
{
	if (why && len)
		snprintf(why, len, "%s", reason);
	return false;
}

/* One component, @n bytes at @c: not empty, not "." or "..". */
static bool component_ok(const char *c, size_t n)
{
	return n && !(n == 1 && c[0] == '.') && !(n == 2 && c[0] == '.' && c[1] == '.');
}

bool cgroup_path_canonical(const char *path, char *why, size_t why_len)
{
	size_t len = path ? strnlen(path, PATH_MAX) : 0;

	if (!len || path[0] != '/')
		return refuse(why, why_len, "does not start with '/'");
	if (len >= PATH_MAX)
		return refuse(why, why_len, "is too long");
	if (len == 1)
		return true;
	for (const char *p = path; *p; p++)
		if ((unsigned char)*p < 0x20 || *p == 0x7f)
			return refuse(why, why_len, "has a control character");
	for (const char *c = path + 1;;) {
		const char *end = strchr(c, '/');
		size_t n = end ? (size_t)(end - c) : strlen(c);

		if (!component_ok(c, n))
			return refuse(
			    why, why_len,
			    "has an empty, \".\" or \"..\" component (or a trailing '/')");
		if (!end)
			return true;
		c = end + 1;
	}
}

bool cgroup_path_within(const char *path, const char *anc)
{
	size_t n = strlen(anc);

	if (!strcmp(anc, "/"))
		return path[0] == '/';
	return !strncmp(anc, path, n) && (path[n] == '/' || !path[n]);
}
