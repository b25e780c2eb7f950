/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Cgroups named by parent and directory name, as inotify tells of a
 * removal: marks the entries the next sweep drops. One pass over the
 * table for any number of names.
 */
#ifndef TAOD_CGROUP_REMOVED_H
#define TAOD_CGROUP_REMOVED_H

#include <stddef.h>
#include <stdint.h>

#include "cgroup_table.h"

struct cgroup_child {
	uint64_t parent_id;
	const char *name;
};

/* Marks removed the walked entries @names name (sorted here); returns how many. */
size_t cgroup_table_mark_removed(struct cgroup_table *t, struct cgroup_child *names, size_t n);

#endif
