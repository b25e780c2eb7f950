/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Cgroup paths as taod compares them: relative to the hierarchy root, one
 * spelling per cgroup. Aliases such as "//", "/a/./b" or a trailing "/"
 * would slip past string comparisons (root, self, allowlist), so every path
 * that enters from outside is checked once, at the boundary.
 */
#ifndef TAOD_CGROUP_PATH_H
#define TAOD_CGROUP_PATH_H

#include <stdbool.h>
#include <stddef.h>

/*
 * True for "/" and for "/a/b" style paths: a leading '/', no empty, "." or
 * ".." component, no trailing '/'. Any other byte is a name's own (the
 * kernel allows control characters in cgroup names), and there is no
 * length limit: cgroups nest deeper than PATH_MAX, and taod opens them
 * component by component (cgroup_dir.h). @why (may be NULL) gets the
 * reason on false.
 */
bool cgroup_path_canonical(const char *path, char *why, size_t why_len);
/* @path is @anc or lies below it (both canonical). */
bool cgroup_path_within(const char *path, const char *anc);

#endif
