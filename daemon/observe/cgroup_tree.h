/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The memory cgroup hierarchy: where it is mounted (v2, or the v1 memory
 * controller) and the mapping between cgroup ids and paths. A cgroup's id
 * is its directory's inode number, which is what the memcg tracepoints
 * report (kernfs node id).
 */
#ifndef TAOD_CGROUP_TREE_H
#define TAOD_CGROUP_TREE_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/cgroup_dir.h" /* struct cgroup_tree */
#include "config/config.h"

/* Returns 0, or -errno with @why set to a sentence for the log. */
int cgroup_tree_detect(struct cgroup_tree *t, const struct taod_config *cfg, char *why,
		       size_t why_len);

/*
 * Reads taod's own memory cgroup again (/proc/self/cgroup): it may have
 * been moved since, and the gate protects the one it is in now. Cheap (one
 * small read); true when it changed, which is logged.
 */
bool cgroup_tree_read_self(struct cgroup_tree *t);

/*
 * Called for each cgroup directory, however deep; @rel is "/" for the root,
 * and the directory is @name ("." for the root) under the open directory
 * @atfd, all valid during the call only. A leaf is not opened (its link
 * count says it has no subdirectories), so a walk costs a stat per cgroup.
 * Non-zero stops.
 */
typedef int (*cgroup_visit_fn)(void *ctx, uint64_t id, const char *rel, int atfd, const char *name);
int cgroup_tree_walk(const struct cgroup_tree *t, cgroup_visit_fn fn, void *ctx);
/* The same from cgroup @rel down: @rel itself first; -errno when it cannot be opened. */
int cgroup_subtree_walk(const struct cgroup_tree *t, const char *rel, cgroup_visit_fn fn,
			void *ctx);

/* The same for the subdirectory @name of the open directory @dirfd, the
 * cgroup @parent_rel (many children of one parent, one open of it):
 * -ENOENT when it is gone or not a directory. */
int cgroup_child_walk(int dirfd, const char *parent_rel, const char *name, cgroup_visit_fn fn,
		      void *ctx);

/* The memory cgroup named in a /proc/PID/cgroup file's text; -ENAMETOOLONG
 * when its line is cut short or does not fit @len. */
int cgroup_of_proc_text(const char *text, int version, char *out, size_t len);

#endif
