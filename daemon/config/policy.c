// SPDX-License-Identifier: GPL-2.0
/* Policies as taod.conf spells them: the built-in default, ladder rungs by name. */
#include <stdio.h>
#include <string.h>

#include "policy.h"

void policy_builtin_default(struct policy *p)
{
	memset(p, 0, sizeof(*p));
	snprintf(p->name, sizeof(p->name), "%s", POLICY_DEFAULT);
	snprintf(p->file, sizeof(p->file), "(built-in)");
	p->coverage_guarantee = 0;
	p->max_split_ratio = 0.25;
	p->min_allocs = 16;
	p->window_ms = 30000;
	p->horizon_ms = 10 * 60 * 1000;
	p->act_on_misuser = true;
	p->sizes = POLICY_SIZES_PMD;
	p->ladder[RUNG_WARN] = 1;
	p->ladder[RUNG_RESTRICT] = 3;
	p->ladder[RUNG_SHATTER] = 5;
	p->cooldown_ms = 60000;
	/* Actions are opted into, per policy or for all in [policy default]. */
	p->dry_run = true;
	p->escalate_after = 2;
	p->relax_after = 3;
}

const char *policy_sizes_name(unsigned sizes)
{
	if (sizes == POLICY_SIZES_MTHP)
		return "mthp";
	return sizes & POLICY_SIZES_MTHP ? "all" : "pmd";
}

enum action_kind ladder_rung_kind(enum ladder_rung r)
{
	return (enum action_kind)(r - 1);
}

const char *ladder_rung_name(enum ladder_rung r)
{
	const struct action_kind_row *row;

	if (r == RUNG_OBSERVE)
		return "observe";
	row = action_kind_row(ladder_rung_kind(r));
	return row && row->rung ? row->name : "?";
}

void ladder_rung_names(char *buf, size_t len)
{
	size_t off = 0;

	buf[0] = '\0';
	for (int r = 0; r < RUNG_MAX && off < len; r++)
		if (strcmp(ladder_rung_name(r), "?"))
			off += snprintf(buf + off, len - off, "%s%s", off ? ", " : "",
					ladder_rung_name(r));
}

void ladder_format(const struct policy *p, char *buf, size_t len)
{
	size_t off = 0;

	buf[0] = '\0';
	for (int r = 0; r < RUNG_MAX && off < len; r++)
		if (p->ladder[r])
			off += snprintf(buf + off, len - off, "%s%s:%u", off ? " " : "",
					ladder_rung_name(r), p->ladder[r]);
}

const struct policy *policy_find(const struct policy_set *set, const char *name)
{
	for (unsigned i = 0; i < set->n; i++)
		if (!strcmp(set->v[i].name, name))
			return &set->v[i];
	return NULL;
}
