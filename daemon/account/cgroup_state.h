/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Per-cgroup accounting: the latest BPF counters and memory.stat figures of
 * every memory cgroup, a ring of recent samples, and rates over a window.
 */
#ifndef TAOD_CGROUP_STATE_H
#define TAOD_CGROUP_STATE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cgroup_table.h"
#include "cg_evidence.h"

/* Deltas and coverage figures over a window ending at the newest sample. */
struct cg_window {
	uint64_t end_ms; /* the newest sample's time */
	uint64_t span_ms;
	uint64_t thp_alloc;
	uint64_t pmd_split;
	double coverage_min, coverage_mean, coverage_max; /* -1 when no anon */
	size_t samples;
};

void cgroup_table_init(struct cgroup_table *t, size_t ring_cap);
void cgroup_table_free(struct cgroup_table *t);
/* Samples kept per cgroup from now on; every ring keeps its newest ones. */
int cgroup_table_set_ring_cap(struct cgroup_table *t, size_t ring_cap);
void cgroup_table_begin_tick(struct cgroup_table *t);
/* Found by the tree walk this tick under @parent_id (creates, renames or moves). */
struct cgroup_entry *cgroup_table_touch(struct cgroup_table *t, uint64_t id, const char *path,
					uint64_t parent_id, uint64_t now_ms);
/*
 * Counters from BPF. Those of a removed cgroup fold into its live ancestor
 * (returns NULL); an id the walk has not seen gets one walk's grace, and
 * once its ancestry is known, a walk the next tick decides. Returns the
 * entry (NULL also when out of memory).
 */
struct cgroup_entry *cgroup_table_set_counters(struct cgroup_table *t, uint64_t id,
					       const struct taod_cg_counters *c, uint64_t now_ms);
/*
 * Counts drained from cg_overflow (events BPF could not put in a full
 * cg_counters), added to the cgroup's own; those of a removed cgroup fold
 * into its live ancestor (returns NULL). Otherwise as set_counters.
 */
struct cgroup_entry *cgroup_table_add_spilled(struct cgroup_table *t, uint64_t id,
					      const struct taod_cg_counters *c, uint64_t now_ms);
/* Whether @e is an id no walk has found whose ancestry BPF was not asked. */
bool cgroup_entry_wants_ancestry(const struct cgroup_entry *e);
/* @a: as BPF noted it; NULL: BPF has none. */
void cgroup_entry_set_ancestry(struct cgroup_entry *e, const struct taod_cg_ancestry *a);
void cgroup_entry_set_memstat(struct cgroup_entry *e, const struct memstat *m, bool ok);
/* Appends a sample to every entry and updates rates over @rate_window_ms. */
void cgroup_table_sample(struct cgroup_table *t, uint64_t now_ms, uint64_t rate_window_ms);
/*
 * After a whole walk: drops entries not seen this tick (or marked removed), folding each one's
 * evidence into its nearest live ancestor; @gone is called for each before it goes, and
 * @forget (may be NULL) for each removed id whose late events are no
 * longer followed (its BPF counters can go). Returns entries dropped.
 */
size_t cgroup_table_sweep(struct cgroup_table *t, cgroup_gone_fn gone, cgroup_forget_fn forget,
			  void *ctx, uint64_t now_ms);
/* The same after a look at part of the tree: drops only the entries
 * marked removed (cgroup_removed.h), at most @max of them, lowest ids
 * first; the others stay unseen, and *@left says how many marked removed
 * stay for a later sweep. */
size_t cgroup_table_sweep_removed(struct cgroup_table *t, cgroup_gone_fn gone,
				  cgroup_forget_fn forget, void *ctx, uint64_t now_ms, size_t max,
				  size_t *left);

/* Splits per allocation; 0 when there were no allocations. */
double cg_split_ratio(uint64_t splits, uint64_t allocs);
/* Rate between two cumulative readings; 0 for a non-positive span. */
double rate_per_s(uint64_t older, uint64_t newer, uint64_t span_ms);
/* The samples of the last @window_ms. */
int cgroup_entry_window(const struct cgroup_entry *e, uint64_t window_ms, struct cg_window *w);
/*
 * From the newest sample at or before @from_ms (the oldest if none is) to
 * the newest: windows that follow each other this way miss no event, even
 * when a tick comes late.
 */
int cgroup_entry_window_from(const struct cgroup_entry *e, uint64_t from_ms, struct cg_window *w);
/* The oldest sample's time; 0 without samples. */
uint64_t cgroup_entry_oldest_ms(const struct cgroup_entry *e);

#endif
