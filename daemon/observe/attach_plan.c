// SPDX-License-Identifier: GPL-2.0
#include "attach_plan.h"

#include <stdio.h>

static void plan(struct attach_plan *p, bool memcg_fentry, bool split_fentry)
{
	static const char *const modes[2][2] = {
	    {"tracepoint", "fentry+tracepoint"},
	    {"fentry", "fentry (exact splits)"},
	};

	p->memcg_fentry = memcg_fentry;
	p->split_fentry = split_fentry;
	p->thp_paths = false;
	snprintf(p->mode, sizeof(p->mode), "%s", modes[memcg_fentry][split_fentry]);
}

/* Best of all: no program on the memcg counters, so none per base page. */
static void plan_thp_paths(struct attach_plan *p)
{
	p->memcg_fentry = false;
	p->split_fentry = true;
	p->thp_paths = true;
	snprintf(p->mode, sizeof(p->mode), "fentry (THP paths)");
}

int attach_plans(const struct btf_facts *f, enum attach_mode m, struct attach_plan *out, char *why,
		 size_t why_len)
{
	bool memcg_fentry = !f->memcg_tracepoints;
	bool can_split = f->pmd_split_fn && f->folio_split_fn;
	int n = 0;

	if ((m == ATTACH_AUTO || m == ATTACH_FENTRY) && can_split && f->thp_path_fns)
		plan_thp_paths(&out[n++]);
	if (memcg_fentry && !f->memcg_functions) {
		if (!n)
			snprintf(why, why_len,
				 "kernel has neither the memcg tracepoints (6.13+) nor "
				 "__count_memcg_events/__mod_memcg_lruvec_state in BTF");
		return n;
	}
	if (memcg_fentry && m == ATTACH_TRACEPOINT) {
		snprintf(why, why_len,
			 "attach = tracepoint, but this kernel has no memcg "
			 "tracepoints (6.13+): use auto or fentry");
		return 0;
	}
	if (m != ATTACH_TRACEPOINT && can_split)
		plan(&out[n++], memcg_fentry, true);
	if (m != ATTACH_FENTRY || memcg_fentry)
		plan(&out[n++], memcg_fentry, false);
	if (!n)
		snprintf(why, why_len,
			 "attach = fentry, but kernel BTF has no split function "
			 "to trace");
	return n;
}
