/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Which BPF programs to try, in order, given what the kernel's BTF offers
 * and the [kernel] attach setting. The first plan that loads and attaches
 * wins; the daemon reports it as the observation mode.
 */
#ifndef TAOD_ATTACH_PLAN_H
#define TAOD_ATTACH_PLAN_H

#include <stdbool.h>
#include <stddef.h>

#include "config/config.h"

struct btf_facts {
	bool memcg_tracepoints;	    /* btf_trace_count_memcg_events (6.13+) */
	bool memcg_functions;	    /* __count_memcg_events, __mod_memcg_lruvec_state */
	const char *pmd_split_fn;   /* NULL: not in BTF */
	const char *folio_split_fn; /* NULL: not in BTF */
	/* THP paths: huge fault, zap and PMD-split entry points plus
	 * folio_remove_rmap_pmd (6.8+), all in BTF. */
	bool thp_path_fns;
};

#define ATTACH_PLANS_MAX 3

struct attach_plan {
	bool memcg_fentry; /* memcg events through fentry, not tracepoints */
	bool split_fentry; /* exact split counting */
	bool thp_paths;	   /* fentry on the THP paths only, no memcg programs */
	char mode[48];	   /* as status shows it */
};

/*
 * Fills up to ATTACH_PLANS_MAX plans, best first. Returns how many, or 0 with @why set
 * when nothing can work here.
 */
int attach_plans(const struct btf_facts *f, enum attach_mode m, struct attach_plan *out, char *why,
		 size_t why_len);

#endif
