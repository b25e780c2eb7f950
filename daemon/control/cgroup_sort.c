// SPDX-License-Identifier: GPL-2.0
#include "cgroup_sort.h"

#include <stdio.h>
#include <string.h>

const char *const cgroup_sort_keys[] = {"path",	       "anon",	 "thp",	       "coverage",
					"allocs",      "splits", "alloc_rate", "split_rate",
					"split_ratio", NULL};

bool cgroup_sort_key_valid(const char *key)
{
	for (int i = 0; cgroup_sort_keys[i]; i++)
		if (!strcmp(cgroup_sort_keys[i], key))
			return true;
	return false;
}

void cgroup_sort_key_words(char *buf, size_t len)
{
	size_t off = 0;

	buf[0] = '\0';
	for (int i = 0; cgroup_sort_keys[i] && off < len; i++)
		off += (size_t)snprintf(buf + off, len - off, "%s%s", i ? ", " : "",
					cgroup_sort_keys[i]);
}
