// SPDX-License-Identifier: GPL-2.0
/* Actions' costs and benefits summed per kind (cost_totals.h). */
#include "cost_totals.h"

void cost_totals_add(struct cost_totals *t, enum action_kind kind, const struct action_cost *c)
{
	if ((unsigned)kind >= ACTION_KIND_MAX || !c->measured)
		return;
	t->measured[kind]++;
	for (int p = 0; p < PHASE_MAX; p++) {
		t->cpu_us[kind][p] += c->cpu_us[p];
		t->wall_us[kind][p] += c->wall_us[p];
	}
	t->kernel_present[kind] |= c->kernel_present;
	for (unsigned i = 0; i < COST_NCOUNTERS; i++)
		if (c->kernel_present & (1u << i))
			t->kernel[kind][i] += c->kernel[i];
}

void cost_totals_benefit(struct cost_totals *t, enum action_kind kind,
			 const struct action_benefit *b)
{
	if ((unsigned)kind >= ACTION_KIND_MAX || !b->final)
		return;
	t->followed[kind]++;
	if (b->free_known) {
		t->free_known[kind]++;
		t->free_regained[kind] += b->free_pmd_regained;
	}
}
