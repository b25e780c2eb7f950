// SPDX-License-Identifier: GPL-2.0
/*
 * The cost and benefit of actions as Prometheus series: the sums the audit
 * keeps per kind (act/gate/cost_totals.h), so that a dashboard can divide
 * taod's CPU and the kernel's work by the actions and weigh them against
 * the free 2 MiB blocks they won back.
 */
#include <stddef.h>

#include "metrics_costs.h"
#include "metrics_internal.h"
#include "act/gate/cost_totals.h"

/* The per-phase families: (name, help, the totals' array). */
static const struct {
	const char *name, *help;
	size_t offset; /* of the [ACTION_KIND_MAX][PHASE_MAX] microseconds */
} phase_families[] = {
    {"taod_action_cpu_seconds_total",
     "taod's CPU time (its thread's user + system) carrying out actions, by kind and phase.",
     offsetof(struct cost_totals, cpu_us)},
    {"taod_action_wall_seconds_total", "Wall time of carrying out actions, by kind and phase.",
     offsetof(struct cost_totals, wall_us)},
};

static const char *kind(int k)
{
	return action_kind_name((enum action_kind)k);
}

static void write_phases(FILE *f, const struct cost_totals *t)
{
	for (size_t m = 0; m < sizeof(phase_families) / sizeof(*phase_families); m++) {
		const uint64_t(*us)[PHASE_MAX] =
		    (const void *)((const char *)t + phase_families[m].offset);

		metrics_family(f, phase_families[m].name, "counter", phase_families[m].help);
		for (int k = 0; k < ACTION_KIND_MAX; k++)
			for (int p = 0; t->measured[k] && p < PHASE_MAX; p++)
				fprintf(f, "%s{kind=\"%s\",phase=\"%s\"} %.6f\n",
					phase_families[m].name, kind(k),
					action_phase_name((enum action_phase)p),
					(double)us[k][p] / 1e6);
	}
}

static void write_kernel(FILE *f, const struct cost_totals *t)
{
	metrics_family(f, "taod_action_costed_total", "counter",
		       "Actions whose cost was measured (the backend was called), by kind.");
	for (int k = 0; k < ACTION_KIND_MAX; k++)
		if (t->measured[k])
			fprintf(f, "taod_action_costed_total{kind=\"%s\"} %llu\n", kind(k),
				(unsigned long long)t->measured[k]);
	metrics_family(f, "taod_action_kernel_total", "counter",
		       "The kernel's work around actions: /proc/vmstat deltas summed, by kind and "
		       "counter (machine-wide: what else ran is in them).");
	for (int k = 0; k < ACTION_KIND_MAX; k++)
		for (unsigned i = 0; i < COST_NCOUNTERS; i++)
			if (t->kernel_present[k] & (1u << i))
				fprintf(f,
					"taod_action_kernel_total{kind=\"%s\",stat=\"%s\"} %llu\n",
					kind(k), cost_counter_name(i),
					(unsigned long long)t->kernel[k][i]);
}

static void write_benefit(FILE *f, const struct metrics_input *in)
{
	const struct cost_totals *t = in->costs;

	metrics_family(f, "taod_action_benefit_followed_total", "counter",
		       "Actions followed up to their last benefit reading, by kind.");
	for (int k = 0; k < ACTION_KIND_MAX; k++)
		if (t->followed[k])
			fprintf(f, "taod_action_benefit_followed_total{kind=\"%s\"} %llu\n",
				kind(k), (unsigned long long)t->followed[k]);
	metrics_family(f, "taod_action_benefit_free_pmd_blocks", "gauge",
		       "Free 2 MiB blocks regained by followed-up actions (their last reading "
		       "less just before them), summed by kind; negative when fewer.");
	for (int k = 0; k < ACTION_KIND_MAX; k++)
		if (t->free_known[k])
			fprintf(f, "taod_action_benefit_free_pmd_blocks{kind=\"%s\"} %lld\n",
				kind(k), (long long)t->free_regained[k]);
	metrics_family(f, "taod_action_benefit_near_zero", "gauge",
		       "1 while the kind's last actions bought next to nothing (taoctl status "
		       "flags it), 0 otherwise; for kinds followed up.");
	for (int k = 0; k < ACTION_KIND_MAX; k++)
		if (in->benefit_flag[k] != METRICS_BENEFIT_UNKNOWN)
			fprintf(f, "taod_action_benefit_near_zero{kind=\"%s\"} %d\n", kind(k),
				in->benefit_flag[k] == METRICS_BENEFIT_NEAR_ZERO);
}

void metrics_write_costs(FILE *f, const struct metrics_input *in)
{
	if (!in->costs)
		return;
	write_phases(f, in->costs);
	write_kernel(f, in->costs);
	write_benefit(f, in);
}
