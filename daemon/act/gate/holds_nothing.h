/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A cgroup that holds nothing: a tenant that shut down.
 * Defined in holds_nothing.c.
 */
#ifndef TAOD_ACT_HOLDS_NOTHING_H
#define TAOD_ACT_HOLDS_NOTHING_H

#include <stdbool.h>

#include "act/act_backend.h"

/*
 * True when cgroup @rel has no task in it or below it and its memory.stat
 * (hierarchical: the subtree's) counts no anon memory. False when either
 * could not be read: an unread file says nothing, and the gate acts.
 */
bool cgroup_holds_nothing(const struct cgroup_tree *t, const struct kernel_paths *k,
			  const char *rel);

#endif
