// SPDX-License-Identifier: GPL-2.0
#include <assert.h>
#include <stdio.h>
#include <string.h>

#include "cgroup_path.h"

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
	if (!path || path[0] != '/')
		return refuse(why, why_len, "does not start with '/'");
	if (!path[1])
		return true;
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
	assert(path);
	assert(anc);

	size_t n = strlen(anc);

	if (!strcmp(anc, "/"))
		return path[0] == '/';
	return !strncmp(anc, path, n) && (path[n] == '/' || !path[n]);
}
