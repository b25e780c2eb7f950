/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The running daemon: the state every stage reaches through struct taod.
 * Only the composition lives here; each stage declares its functions in
 * its own header (report_stage.h, act.h, decide.h, ...).
 */
#ifndef TAOD_DAEMON_H
#define TAOD_DAEMON_H

#include <stdbool.h>
#include <stdint.h>
#include <systemd/sd-event.h>

#include "taod/bpf_observer.h"
#include "taod/cgroup_state.h"
#include "taod/cgroup_tree.h"
#include "taod/cgroup_watch.h"
#include "taod/clock.h"
#include "taod/config.h"
#include "taod/decide.h"
#include "taod/kernel_probe.h"

struct control_server;
struct actor;
struct history;
struct machine_stats;

struct taod {
	struct taod_config *cfg;
	char config_path[PATH_MAX];
	char dropin_dir[PATH_MAX];
	struct cgroup_tree tree;
	struct kernel_info kernel;
	struct bpf_observer *obs;
	struct cgroup_table cgroups;
	struct cgroup_watch watch; /* walk the tree only when it changed */
	size_t memstat_cursor;	   /* round robin over cgroups without events */
	uint64_t bpf_stats[TAOD_STAT_MAX];
	uint64_t start_ms;	/* monotonic */
	uint64_t start_wall_ms; /* realtime, for reports */
	uint64_t ticks;
	uint64_t last_tick_cost_us;
	sd_event *event;
	sd_event_source *tick_source;
	struct control_server *ctl;
	struct actor *actor; /* the act stage: gate, backend, audit */
	/* decide: per-cgroup judgements; requests go to action_sink */
	struct decide_state decide;
	action_sink_fn action_sink;
	void *action_sink_ctx;
	/* Re-reads the configuration (SIGHUP, `taoctl reload`); 0 or errors. */
	int (*reload)(struct taod *d, struct config_errors *errs);
	struct history *history; /* NULL: no history (off or unusable) */
	uint64_t history_batches;
	uint64_t history_last_tick;    /* tick of the last batch written */
	struct machine_stats *machine; /* zones and mTHP stats, read when needed */
	int textfile_err;	       /* last metrics textfile error, logged once */
};

/* One pass of observe -> account -> decide -> act -> report; 0, or the
 * first -errno met (the pass still runs to the end). */
int pipeline_tick(struct taod *d);

#endif
