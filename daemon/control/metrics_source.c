// SPDX-License-Identifier: GPL-2.0
/* The running daemon's figures, as the metrics writer takes them. */
#include "taod/commands.h"
#include "taod/metrics.h"
#include "taod/version.h"

void taod_metrics_input(const struct taod *d, struct metrics_input *in)
{
	*in = (struct metrics_input){
	    .cgroups = &d->cgroups,
	    .bpf_stats = d->bpf_stats,
	    .ticks = d->ticks,
	    .last_tick_cost_us = d->last_tick_cost_us,
	    .start_wall_ms = d->start_wall_ms,
	    .version = taod_version(),
	    .kernel_kind = kernel_kind_name(d->kernel.kind),
	    .observation_mode = d->obs ? bpf_observer_mode(d->obs) : "",
	    .machine = d->report.machine,
	    .history_enabled = d->report.history != NULL,
	};
}
