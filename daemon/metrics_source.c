// SPDX-License-Identifier: GPL-2.0
/* The running daemon's figures, as the metrics writer takes them. */
#include "act/act.h"
#include "act/gate/audit.h"
#include "act/gate/cost_totals.h"
#include "pipeline.h"
#include "report/metrics/metrics.h"
#include "common/version.h"

/* A tenant root, as `taoctl abusers` lists them; members are judged with it. */
static bool judged_at(const void *ctx, size_t i, struct metrics_judged *out)
{
	const struct taod *d = ctx;
	const struct cg_judge *j = d->decide.v[i];
	const struct policy *p;

	if (!j->path || j->tenant_id != j->id)
		return false;
	p = policy_find(&d->cfg->policies, j->policy);
	*out = (struct metrics_judged){
	    .cgroup = j->path,
	    .class_name = cg_class_name(j->cls),
	    .scored = j->has_verdict,
	    .score = j->last.score,
	    .guarantee_ratio = p && p->coverage_guarantee > 0 ? p->coverage_guarantee / 100.0 : -1,
	    .shatters_asked = j->shatters_asked,
	};
	return true;
}

/* Each kind's near-zero flag, as `status` shows it. */
static void benefit_flags(const struct taod *d, struct metrics_input *in)
{
	for (int k = 0; k < ACTION_KIND_MAX; k++) {
		unsigned followed;
		bool flat = actor_benefit_flag(d->actor, (enum action_kind)k, &followed, NULL, 0);

		in->benefit_flag[k] = !followed ? METRICS_BENEFIT_UNKNOWN
				      : flat	? METRICS_BENEFIT_NEAR_ZERO
						: METRICS_BENEFIT_WORTH;
	}
}

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
	    .observation_mode = d->obs ? thp_observe_mode(d->obs) : "",
	    .machine = d->report.machine,
	    .pressure = &d->pressure,
	    .history_enabled = report_stage_history_up(&d->report),
	    .sinks = {[SINK_HISTORY] = report_stage_sink(&d->report, SINK_HISTORY),
		      [SINK_TEXTFILE] = report_stage_sink(&d->report, SINK_TEXTFILE)},
	    .njudged = d->decide.n,
	    .judged = judged_at,
	    .judged_ctx = d,
	};
	if (d->actor) {
		in->audit = actor_audit(d->actor);
		in->sinks[SINK_AUDIT] = audit_health(in->audit);
		in->costs = audit_cost_totals(in->audit);
		benefit_flags(d, in);
	}
}
