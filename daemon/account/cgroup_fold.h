/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Removed cgroups fold into their nearest live ancestor (account stage,
 * daemon/account/cgroup_fold.c): the evidence a cgroup gathered, and the
 * events the kernel still charges to its id after it went (its pages stay
 * charged to the dying memcg), are added to the ancestor's
 * cgroup_entry.folded. A tenant that hops between child cgroups, removing
 * each, leaves all its evidence in the parent. A removed id is followed as
 * a tombstone until it has been quiet for FOLD_TOMB_IDLE_MS, at most
 * FOLD_TOMB_MAX of them (the quietest go first). Its BPF rows are taken
 * out of the maps as it goes, and again whenever late events made new
 * ones (cgroup_fold_reclaimed), so removed cgroups never fill them.
 */
#ifndef TAOD_CGROUP_FOLD_H
#define TAOD_CGROUP_FOLD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cgroup_table.h"

#define FOLD_TOMB_IDLE_MS (10 * 60 * 1000ULL)
#define FOLD_TOMB_MAX	  4096

/* @gone were dropped this tick: tombstones first, then each one's evidence
 * goes to the live ancestor (through tombstones of ancestors dropped too).
 * One no walk found goes to the nearest of its BPF ancestors that is live
 * or folds (cgroup_entry.bpf_ancestors); with none, its evidence is lost. */
void cgroup_fold_removed(struct cgroup_table *t, struct cgroup_entry *const *gone, size_t n,
			 uint64_t now_ms);
/* BPF counters of @id: true when @id is a removed cgroup (what moved since
 * the last reading is folded), false when it is not one. */
bool cgroup_fold_late(struct cgroup_table *t, uint64_t id, const struct taod_cg_counters *c,
		      uint64_t now_ms);
/* Counts of @id drained from cg_overflow: true when @id is a removed
 * cgroup (all of them fold into its live ancestor), false when not one. */
bool cgroup_fold_spilled(struct cgroup_table *t, uint64_t id, const struct taod_cg_counters *c,
			 uint64_t now_ms);
/* Per-size counters of @id (BPF's cg_sizes): true when @id is a removed
 * cgroup (the events that moved since the last reading are added to its
 * live ancestor's folded_sizes), false when it is not one. */
bool cgroup_fold_late_sizes(struct cgroup_table *t, uint64_t id, const struct taod_cg_sizes *s,
			    uint64_t now_ms);
/* BPF's rows of removed cgroup @id as they were when taken out of the
 * maps (NULL: none was taken): what moved since the last reading folds,
 * and the baseline of each row taken goes to zero, as BPF's next row for
 * @id counts from zero. A row left in its map (live gauges) is a late
 * reading (cgroup_fold_late_sizes), its baseline kept.
 * False when @id is not a removed cgroup followed. */
bool cgroup_fold_reclaimed(struct cgroup_table *t, uint64_t id, const struct taod_cg_counters *c,
			   const struct taod_cg_sizes *s, uint64_t now_ms);
/* Stops following quiet tombstones; @forget (may be NULL) is told each id. */
void cgroup_fold_expire(struct cgroup_table *t, cgroup_forget_fn forget, void *ctx,
			uint64_t now_ms);
/* The live entry @id folds into: itself, or through tombstones; NULL if none. */
struct cgroup_entry *cgroup_fold_target(const struct cgroup_table *t, uint64_t id);
/* Whether @id is a removed cgroup whose late events are followed. */
bool cgroup_fold_follows(const struct cgroup_table *t, uint64_t id);
size_t cgroup_fold_tombstones(const struct cgroup_table *t);
void cgroup_fold_free(struct cgroup_table *t);

#endif
