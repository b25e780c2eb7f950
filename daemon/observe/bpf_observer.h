/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The BPF side of observation: loads bpf/thp_observe, probes whether the
 * exact split functions can be traced with fentry, and reads the per-CPU
 * counter maps summed over CPUs.
 */
#ifndef TAOD_BPF_OBSERVER_H
#define TAOD_BPF_OBSERVER_H

#include <linux/types.h>
#include <stddef.h>
#include <stdint.h>

#include "taod/bpf_shared.h"
#include "config/config.h"

struct bpf_observer;

int bpf_observer_open(struct bpf_observer **out, const struct taod_config *cfg);
void bpf_observer_close(struct bpf_observer *o);

/* "fentry+tracepoint" or "tracepoint", and the reason for the choice. */
const char *bpf_observer_mode(const struct bpf_observer *o);
const char *bpf_observer_mode_reason(const struct bpf_observer *o);
/* What the per-size (mTHP) counters see with the programs loaded. */
const char *bpf_observer_sizes_mode(const struct bpf_observer *o);

/* Settle PMD removals left pending on each CPU (once per tick). */
int bpf_observer_flush(struct bpf_observer *o);

typedef void (*cg_counters_fn)(void *ctx, uint64_t cgroup_id, const struct taod_cg_counters *c);
int bpf_observer_read_cgroups(struct bpf_observer *o, cg_counters_fn fn, void *ctx);
/* Drops the cgroup's counters and ancestry. */
int bpf_observer_forget_cgroup(struct bpf_observer *o, uint64_t cgroup_id);
/* The ancestors BPF noted at the cgroup's first charge; -ENOENT if none. */
int bpf_observer_cgroup_ancestry(struct bpf_observer *o, uint64_t cgroup_id,
				 struct taod_cg_ancestry *out);

/* Calls @fn for each cgroup with large-folio events (per order); returns 0
 * or a negative errno. Only where the per-size programs run (fentry). */
typedef void (*cg_sizes_fn)(void *ctx, uint64_t cgroup_id, const struct taod_cg_sizes *s);
int bpf_observer_read_sizes(struct bpf_observer *o, cg_sizes_fn fn, void *ctx);

/* Task @tgid's large-folio events by order (fentry's per-size programs):
 * 0, or -ENOENT when none was counted. */
int bpf_observer_task_sizes(struct bpf_observer *o, uint32_t tgid, struct taod_task_sizes *out);

typedef void (*task_counters_fn)(void *ctx, uint32_t tgid, const struct taod_task_counters *t);
int bpf_observer_read_tasks(struct bpf_observer *o, task_counters_fn fn, void *ctx);

int bpf_observer_stats(struct bpf_observer *o, uint64_t out[TAOD_STAT_MAX]);

/* Samples the user stacks of the splits of tasks @tgids (at most
 * TAOD_STACK_WATCH) and of no other. Returns 0 or a negative errno. */
int bpf_observer_watch_stacks(struct bpf_observer *o, const uint32_t *tgids, size_t n);
/* The last split stack sampled of task @tgid; -ENOENT when none was. */
int bpf_observer_split_stack(struct bpf_observer *o, uint32_t tgid, struct taod_split_stack *out);

/* Per program: run count and run time, when kernel.bpf_stats_enabled is 1. */
struct bpf_prog_cost {
	char name[32];
	uint64_t run_cnt;
	uint64_t run_time_ns;
};
int bpf_observer_costs(struct bpf_observer *o, struct bpf_prog_cost *out, size_t max);

#endif
