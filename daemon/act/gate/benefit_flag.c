// SPDX-License-Identifier: GPL-2.0
/* The near-zero-benefit flag of an action kind (benefit_flag.h). */
#include <assert.h>
#include <stdio.h>

#include "benefit_flag.h"

void benefit_log_add(struct benefit_log *l, const struct action_benefit *b, uint64_t cpu_us)
{
	assert(l);
	assert(b);
	l->last[l->head] = *b;
	l->cpu_us[l->head] = cpu_us;
	l->head = (l->head + 1) % BENEFIT_FLAG_ACTIONS;
	if (l->n < BENEFIT_FLAG_ACTIONS)
		l->n++;
}

void benefit_log_sum(const struct benefit_log *l, struct benefit_summary *s)
{
	assert(l);
	assert(s);

	double free_sum = 0, cov_sum = 0, cpu = 0;

	*s = (struct benefit_summary){.actions = l->n};
	for (unsigned i = 0; i < l->n; i++) {
		const struct action_benefit *b = &l->last[i];

		cpu += l->cpu_us[i] / 1000.0;
		if (b->free_known) {
			s->free_known++;
			free_sum += (double)b->free_pmd_regained;
		}
		if (b->coverage_n) {
			s->coverage_n++;
			cov_sum += b->coverage_change;
		}
	}
	s->free_regained = s->free_known ? free_sum / s->free_known : 0;
	s->coverage_gain = s->coverage_n ? cov_sum / s->coverage_n : 0;
	s->cpu_ms = l->n ? cpu / l->n : 0;
}

bool benefit_near_zero(const struct benefit_log *l, char *why, size_t len)
{
	struct benefit_summary s;
	bool flat;

	benefit_log_sum(l, &s);
	/* Too few to say; free blocks unknown everywhere say nothing either. */
	flat = s.actions == BENEFIT_FLAG_ACTIONS && (s.free_known || s.coverage_n) &&
	       s.free_regained < BENEFIT_MIN_BLOCKS && s.coverage_gain < BENEFIT_MIN_POINTS;
	if (!why)
		return flat;
	if (s.actions < BENEFIT_FLAG_ACTIONS)
		snprintf(why, len, "%u of %d actions followed up", s.actions, BENEFIT_FLAG_ACTIONS);
	else
		snprintf(why, len,
			 "last %u actions: %+.1f free 2 MiB blocks regained and %+.1f coverage "
			 "points for wanting tenants (%u of them followed) per action, for %.1f ms "
			 "of taod CPU each%s",
			 s.actions, s.free_regained, s.coverage_gain, s.coverage_n, s.cpu_ms,
			 flat ? ": next to no benefit" : "");
	return flat;
}
