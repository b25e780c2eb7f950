// SPDX-License-Identifier: GPL-2.0
/* One window of a cgroup's counters, judged against its policy. */
#include <stdio.h>
#include <string.h>

#include "taod/decide.h"

static enum cg_class level_for(const struct verdict *v)
{
	if (!v->judged || v->score <= 1.0)
		return CLASS_GOOD;
	return v->score > DECIDE_ABUSER_SCORE ? CLASS_ABUSER : CLASS_MISUSER;
}

static void coverage_check(struct verdict *v, const struct policy *p)
{
	double missing;

	if (p->coverage_guarantee <= 0 || v->coverage_mean < 0 ||
	    v->coverage_mean >= p->coverage_guarantee)
		return;
	v->below_guarantee = true;
	missing = (p->coverage_guarantee - v->coverage_mean) / 100.0;
	v->reward_bytes = (uint64_t)(missing * (double)v->anon_bytes);
}

void verdict_from_window(const struct cg_window *w, const struct cgroup_entry *e,
			 const struct policy *p, struct verdict *v)
{
	memset(v, 0, sizeof(*v));
	v->span_ms = w->span_ms;
	v->allocs = w->thp_alloc;
	v->splits = w->pmd_split;
	v->split_ratio = cg_split_ratio(v->splits, v->allocs);
	v->score = v->split_ratio / p->max_split_ratio;
	v->coverage_mean = w->coverage_mean;
	v->coverage_min = w->coverage_min;
	v->coverage_max = w->coverage_max;
	if (e->mem_ok) {
		v->anon_bytes = e->mem.anon_bytes;
		v->thp_bytes = e->mem.thp_bytes;
	}
	v->judged = v->allocs > 0 && v->allocs >= p->min_allocs;
	v->level = level_for(v);
	coverage_check(v, p);
}

void verdict_evidence(const struct verdict *v, const struct policy *p, char *buf, size_t len)
{
	int n =
	    snprintf(buf, len, "%.1fs window: %llu THP allocs, %llu splits, ratio %.2f (max %.2f)",
		     (double)v->span_ms / 1000.0, (unsigned long long)v->allocs,
		     (unsigned long long)v->splits, v->split_ratio, p->max_split_ratio);

	if (n < 0 || (size_t)n >= len)
		return;
	if (!v->judged)
		n += snprintf(buf + n, len - (size_t)n, ", not judged (< %llu allocs)",
			      (unsigned long long)p->min_allocs);
	else
		n += snprintf(buf + n, len - (size_t)n, ", score %.2f", v->score);
	if ((size_t)n >= len)
		return;
	if (v->coverage_mean >= 0)
		snprintf(buf + n, len - (size_t)n, ", coverage %.1f%% (%.1f-%.1f)",
			 v->coverage_mean, v->coverage_min, v->coverage_max);
	else
		snprintf(buf + n, len - (size_t)n, ", no anon memory");
}
