/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The BPF side of observation: loads bpf/thp_observe/ (its files linked
 * into one object, the thp_observe skeleton), probes whether the
 * exact split functions can be traced with fentry, and reads the per-CPU
 * counter maps summed over CPUs.
 */
#ifndef TAOD_OBSERVE_THP_OBSERVE_H
#define TAOD_OBSERVE_THP_OBSERVE_H

#include <linux/types.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "taod/thp_observe.h"
#include "config/config.h"

struct thp_observe;

int thp_observe_open(struct thp_observe **out, const struct taod_config *cfg);
void thp_observe_close(struct thp_observe *o);

/* "fentry+tracepoint" or "tracepoint", and the reason for the choice. */
const char *thp_observe_mode(const struct thp_observe *o);
const char *thp_observe_mode_reason(const struct thp_observe *o);
/* What the per-size (mTHP) counters see with the programs loaded. */
const char *thp_observe_sizes_mode(const struct thp_observe *o);
/* Whether the sizes' nr_partial (folios partly mapped now) is counted. */
bool thp_observe_partial_gauge(const struct thp_observe *o);

/* Settle PMD removals left pending on each CPU (once per tick). */
int thp_observe_flush(struct thp_observe *o);

typedef void (*cg_counters_fn)(void *ctx, uint64_t cgroup_id, const struct taod_cg_counters *c);
int thp_observe_read_cgroups(struct thp_observe *o, cg_counters_fn fn, void *ctx);
/* Calls @fn with each cgroup's counts in cg_overflow (what did not fit
 * cg_counters) since the last drain, and drops them from the map. */
int thp_observe_drain_overflow(struct thp_observe *o, cg_counters_fn fn, void *ctx);
/* Rows in cg_counters at the last thp_observe_read_cgroups. */
size_t thp_observe_cgroup_rows(const struct thp_observe *o);
/* Drops the cgroup's counters and ancestry. */
int thp_observe_forget_cgroup(struct thp_observe *o, uint64_t cgroup_id);

/* A cgroup's rows as they were when taken out of the maps; has_*: it had one. */
struct cg_taken {
	bool has_counters, has_sizes;
	bool sizes_kept;		  /* the cg_sizes row was read but stays: its gauges live */
	struct taod_cg_counters counters; /* summed over CPUs */
	struct taod_cg_sizes sizes;
};
/*
 * Takes a removed cgroup's rows out of cg_counters and cg_sizes (each read
 * and deleted in one call) and drops its ancestry, so the entries go back
 * to the maps for cgroups made later; events charged to the id after this
 * make it a new row that counts from zero. A cg_sizes row whose gauges are
 * not zero (folios its dying memcg still holds, or holds partly mapped) is
 * read and left: BPF only takes a gauge down in a row that exists, and the
 * parent's count of what the child strands follows that row until the
 * folios go. 0, or a negative errno.
 */
int thp_observe_take_cgroup(struct thp_observe *o, uint64_t cgroup_id, struct cg_taken *out);
/* The ancestors BPF noted at the cgroup's first charge; -ENOENT if none. */
int thp_observe_cgroup_ancestry(struct thp_observe *o, uint64_t cgroup_id,
				struct taod_cg_ancestry *out);

/* Calls @fn for each cgroup with large-folio events (per order); returns 0
 * or a negative errno. Only where the per-size programs run (fentry). */
typedef void (*cg_sizes_fn)(void *ctx, uint64_t cgroup_id, const struct taod_cg_sizes *s);
int thp_observe_read_sizes(struct thp_observe *o, cg_sizes_fn fn, void *ctx);

/* Task @tgid's large-folio events by order (fentry's per-size programs):
 * 0, or -ENOENT when none was counted. */
int thp_observe_task_sizes(struct thp_observe *o, uint32_t tgid, struct taod_task_sizes *out);

typedef void (*task_counters_fn)(void *ctx, uint32_t tgid, const struct taod_task_counters *t);
int thp_observe_read_tasks(struct thp_observe *o, task_counters_fn fn, void *ctx);

int thp_observe_stats(struct thp_observe *o, uint64_t out[TAOD_STAT_MAX]);

/* Samples the user stacks of the splits of tasks @tgids (at most
 * TAOD_STACK_WATCH) and of no other. Returns 0 or a negative errno. */
int thp_observe_watch_stacks(struct thp_observe *o, const uint32_t *tgids, size_t n);
/* The last split stack sampled of task @tgid; -ENOENT when none was. */
int thp_observe_split_stack(struct thp_observe *o, uint32_t tgid, struct taod_split_stack *out);

/* Per program: run count and run time, when kernel.bpf_stats_enabled is 1. */
struct bpf_prog_cost {
	char name[32];
	uint64_t run_cnt;
	uint64_t run_time_ns;
};
int thp_observe_costs(struct thp_observe *o, struct bpf_prog_cost *out, size_t max);

#endif
