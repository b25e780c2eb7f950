/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The pipeline's header: the stages composed in struct taod, which only the
 * pipeline (daemon/pipeline.c, daemon/taod.c) and the control plane
 * (daemon/control/) see. Each stage declares its functions in its own
 * header (decide.h, act.h, report_stage.h, ...) and is handed what it reads.
 */
#ifndef TAOD_PIPELINE_H
#define TAOD_PIPELINE_H

#include <stdbool.h>
#include <stdint.h>
#include <systemd/sd-event.h>

#include "observe/thp_observe.h"
#include "account/cgroup_state.h"
#include "account/contiguity_pressure.h"
#include "observe/cgroup_tree.h"
#include "observe/cgroup_watch.h"
#include "common/clock.h"
#include "config/config.h"
#include "decide/decide.h"
#include "observe/kernel_probe.h"
#include "report/report_stage.h"

struct control_server;
struct actor;

struct taod {
	struct taod_config *cfg;
	char config_path[PATH_MAX];
	char dropin_dir[PATH_MAX];
	struct cgroup_tree tree;
	struct kernel_info kernel;
	struct thp_observe *obs;
	struct cgroup_table cgroups;
	struct cgroup_watch watch;	  /* walk the tree only when it changed */
	struct cgroup_events tree_events; /* the last drain's (tree_sync.c) */
	/* Directories made that no tick has walked yet (a few thousand made
	 * at once are walked over several ticks), oldest first. */
	struct cgroup_events tree_backlog;
	size_t removed_left;	  /* cgroups marked removed that a sweep left for the next tick */
	size_t verify_cursor;	  /* round robin over the directories checked */
	uint64_t tree_walks;	  /* whole walks of the tree since start */
	size_t dropped_untrimmed; /* entries freed since the heap was last trimmed */
	uint64_t dropped_tick;	  /* the last tick that freed any */
	/* A directory with more or fewer subdirectories than known, and how
	 * many links it had: walked if the next tick finds the same. */
	uint64_t suspect_id, suspect_nlink;
	size_t memstat_cursor; /* round robin over cgroups without events */
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
	/* account: contiguity pressure, read every tick; the last read error */
	struct pressure_state pressure;
	char pressure_err[256];
	action_sink_fn action_sink;
	void *action_sink_ctx;
	/* Re-reads the configuration (SIGHUP, `taoctl reload`); 0 or errors.
	 * @restart (may be NULL): changed settings only a restart applies. */
	int (*reload)(struct taod *d, struct config_errors *errs, struct config_restart *restart);
	struct report_stage report; /* history and the metrics textfile */
};

/* One pass of observe -> account -> decide -> act -> report; 0, or the
 * first -errno met (the pass still runs to the end). */
int pipeline_tick(struct taod *d);
/* Hands the actor the tenants its benefit follow-ups read (after actor_open). */
void pipeline_benefit_source(struct taod *d);
/* What the report stage reads this tick (also for its last batch at exit). */
void pipeline_report_tick(struct taod *d, struct report_tick *t);
/* The running daemon's figures, for the textfile and the control plane's
 * `metrics` (metrics_source.c). */
void taod_metrics_input(const struct taod *d, struct metrics_input *in);

#endif
