/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The cgroup table follows the tree, at a cost that grows with what
 * changed: the directories inotify names are walked (a made one with all
 * below it) and the removed ones dropped; a whole walk only on the first
 * tick, when the events cannot be trusted (queue overflow, a rename, no
 * inotify) or BPF names a cgroup no walk found. A slice of the known
 * directories is checked every tick (still there, the same inode, as many
 * subdirectories as known), so a lost event is found within a round.
 * Directories made are walked a budget a tick (a count and a time), the
 * rest kept in order for the next (struct taod.tree_backlog); meanwhile the
 * checks that would take them for lost events wait.
 */
#ifndef TAOD_TREE_SYNC_H
#define TAOD_TREE_SYNC_H

#include <stdint.h>

#include "pipeline.h"

/* Every directory is checked once in this many ticks. */
#define TREE_VERIFY_TICKS 300

/* 0, or the -errno of a walk that failed (the table keeps what it had). */
int tree_sync(struct taod *d, uint64_t now_ms);
/*
 * At the end of a tick: once many cgroups are gone (a churn of thousands,
 * over one tick or many) and none went for a few ticks, so that every
 * stage has freed what it kept of them, the heap gives the pages back.
 */
void tree_sync_trim(struct taod *d);
/*
 * Takes removed cgroup @id's BPF rows out of the maps (thp_observe_take_
 * cgroup) and folds what they held since the last reading into its live
 * ancestor (cgroup_fold_reclaimed); a cg_sizes row left for its live
 * gauges is folded as a late reading. Nothing when @id has no rows.
 */
void tree_sync_reclaim(struct taod *d, uint64_t id, uint64_t now_ms);

#endif
