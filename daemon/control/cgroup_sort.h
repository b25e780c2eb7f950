/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The keys `cgroups` sorts by, named once: taod sorts by them and taoctl
 * refuses any other before it asks (numeric keys sort largest first).
 */
#ifndef TAOD_CGROUP_SORT_H
#define TAOD_CGROUP_SORT_H

#include <stdbool.h>
#include <stddef.h>

/* "path", "anon", ...; NULL ends it. */
extern const char *const cgroup_sort_keys[];

bool cgroup_sort_key_valid(const char *key);
/* "path, anon, thp, ...": every key, in the table's order. */
void cgroup_sort_key_words(char *buf, size_t len);

#endif
