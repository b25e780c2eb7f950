// SPDX-License-Identifier: GPL-2.0
/*
 * A tenant's verdict: the contiguity it wasted against the contiguity it
 * was given. Broken: THPs split by a PMD split that left them partly
 * mapped, in THP units by the pages split (a whole unmap gives the block
 * back and is no waste). Given: THPs allocated to the tenant (fault and
 * collapse), and at least the most it held at once (memory.stat), so a
 * tenant that faulted its THPs long ago and splits them now owns up to
 * them. Both decay with the policy's horizon as half-life and are judged
 * at the end of each window, so a split counts the same whether it came
 * in the window of the fault or minutes later, and one noisy window
 * cannot decide. waste = broken / max(given, held peak, broken); score =
 * waste / max_split_ratio; above 1 a misuser, above DECIDE_ABUSER_SCORE an
 * abuser. Less evidence than min_allocs THPs: not judged (its score still
 * counts toward a streak up, hysteresis.c). A tenant with no live task and
 * no anon memory is not judged either: whatever it broke was freed. The policy's
 * `sizes` says which folios count: PMD THPs, the multi-size THPs below
 * them (given and broken in bytes, in THP units: a 64 KiB folio left
 * partially mapped breaks 1/32 of a THP's contiguity), or both.
 * Where BPF counts the folios partly mapped now (issue 26), broken is what
 * lasts instead: the most THPs left partly mapped at a judgement, decaying
 * with the same half-life, so splits that khugepaged repairs or the
 * tenant frees within seconds weigh little; given are then THPs faulted,
 * not khugepaged's re-collapses of what it strands.
 * Over a life, an allocator whose THPs come from khugepaged can keep most
 * of them partly mapped and still be given enough to stay under the line
 * (issue 36: mimalloc, 13 partly mapped of 16 held, waste 0.249 over 55
 * faults). So each judgement also weighs what the tenant holds now,
 * whatever made it THPs: held waste = partly mapped / (PMD-mapped whole +
 * partly mapped), not decayed, so a window that strands briefly is forgotten
 * at the next; waste is the larger of the two. Evidence counts every THP
 * made (fault or collapse) and those held now.
 */
#include <assert.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "decide.h"

/* What a score says, judged or not. */
static enum cg_class level_of_score(double score)
{
	if (score <= 1.0)
		return CLASS_GOOD;
	return score > DECIDE_ABUSER_SCORE ? CLASS_ABUSER : CLASS_MISUSER;
}

enum cg_class verdict_strike_class(const struct policy *p)
{
	return p->act_on_misuser ? CLASS_MISUSER : CLASS_ABUSER;
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

/* Field by field, what @now adds to @then; a field that went down (a
 * member left the tenant) restarts from where it is. */
static uint64_t grew(uint64_t then, uint64_t now)
{
	return now > then ? now - then : 0;
}

static double thps_of_pages(uint64_t pages)
{
	static long page;

	if (!page)
		page = sysconf(_SC_PAGESIZE);
	return (double)pages * (double)page / (double)DECIDE_THP_BYTES;
}

/* THP units partly mapped now: what lasts, not the splits that made it
 * (khugepaged's repairs and the tenant's frees took theirs back). */
static double stranded_now(const struct cg_evidence *acc, bool pmd, bool mthp)
{
	return (pmd ? (double)acc->partly_mapped_thps : 0) +
	       (mthp ? (double)acc->partly_mapped_mthp_bytes / (double)DECIDE_THP_BYTES : 0);
}

/* THPs given: faults and collapses; judged on what lasts, faults only,
 * since khugepaged's re-collapse of what a tenant strands gives it nothing
 * new (a collapse of fresh memory is held, and the held peak counts it). */
static uint64_t thps_given(const struct cg_judge *j)
{
	if (j->acc.partly_counted)
		return grew(j->seen.thp_fault, j->acc.thp_fault);
	return grew(j->seen.thp_alloc, j->acc.thp_alloc);
}

/* Decays @j's figures to @now_ms and adds the window's evidence. */
static void accumulate(struct cg_judge *j, const struct cgroup_entry *e, const struct policy *p,
		       uint64_t now_ms, struct verdict *v)
{
	double dt = j->decayed_ms && now_ms > j->decayed_ms ? (double)(now_ms - j->decayed_ms) : 0;
	double f = exp2(-dt / (double)(p->horizon_ms ? p->horizon_ms : 1));
	uint64_t pages = grew(j->seen.split_pages, j->acc.split_pages);
	double held = e->mem_ok ? (double)e->mem.thp_bytes / (double)DECIDE_THP_BYTES : 0;
	bool pmd = p->sizes & POLICY_SIZES_PMD, mthp = p->sizes & POLICY_SIZES_MTHP;
	/* Below the PMD, in THP units: bytes of contiguity given and broken. */
	double m_given = (double)grew(j->seen.mthp_alloc_bytes, j->acc.mthp_alloc_bytes) /
			 (double)DECIDE_THP_BYTES;
	uint64_t m_broken_bytes = grew(j->seen.mthp_broken_bytes, j->acc.mthp_broken_bytes);
	double m_broken = (double)m_broken_bytes / (double)DECIDE_THP_BYTES;

	v->allocs = grew(j->seen.thp_alloc, j->acc.thp_alloc);
	v->splits = grew(j->seen.pmd_split, j->acc.pmd_split);
	v->fallbacks = grew(j->seen.fault_fallback, j->acc.fault_fallback);
	j->given = j->given * f + (pmd ? (double)thps_given(j) : 0) + (mthp ? m_given : 0);
	j->made = j->made * f + (pmd ? (double)v->allocs : 0) + (mthp ? m_given : 0);
	j->broken = j->acc.partly_counted
			? fmax(j->broken * f, stranded_now(&j->acc, pmd, mthp))
			: j->broken * f + (pmd ? thps_of_pages(pages) : 0) + (mthp ? m_broken : 0);
	j->held_peak = fmax(j->held_peak * f, pmd ? held : 0);
	/* Fresh breakage an action may answer: below the PMD too where judged
	 * (else a tenant stranding only small folios would never be acted on). */
	j->fresh_pages += pages + (mthp ? m_broken_bytes / 4096 : 0);
	j->seen = j->acc;
	j->decayed_ms = now_ms;
}

/*
 * The PMD THPs @j's tenant holds at the judgement, whatever made them
 * (fault, khugepaged, MADV_COLLAPSE): whole ones are PMD-mapped
 * (memory.stat anon_thp; a THP an mremap or mprotect left mapped by PTEs,
 * all of it, is neither), partly mapped ones the gauge's.
 */
static void held_now(const struct cg_judge *j, const struct cgroup_entry *e, const struct policy *p,
		     struct verdict *v)
{
	double held;

	if (!j->acc.partly_counted || !(p->sizes & POLICY_SIZES_PMD) || !e->mem_ok)
		return;
	v->held_whole = (double)e->mem.thp_bytes / (double)DECIDE_THP_BYTES;
	v->held_partly = (double)j->acc.partly_mapped_thps;
	held = v->held_whole + v->held_partly;
	v->held_judged =
	    v->held_partly > 0 && v->held_partly >= DECIDE_HELD_FLOOR * (double)p->min_allocs;
	v->held_waste = v->held_judged ? v->held_partly / held : 0;
}

void verdict_judge(struct cg_judge *j, const struct cg_window *w, const struct cgroup_entry *e,
		   const struct policy *p, uint64_t now_ms, struct verdict *v)
{
	assert(j && w && e && p && v);

	double exposure, evidence;

	memset(v, 0, sizeof(*v));
	accumulate(j, e, p, now_ms, v);
	held_now(j, e, p, v);
	v->span_ms = w->span_ms;
	v->split_ratio = cg_split_ratio(v->splits, v->allocs);
	v->given = j->given;
	v->held_peak = j->held_peak;
	v->broken = j->broken;
	/* A THP it broke was its own: what it broke is evidence it held as
	 * much, however few it faulted (khugepaged gave it the rest). */
	exposure = fmax(fmax(j->given, j->held_peak), j->broken);
	v->waste = exposure > 0 ? j->broken / exposure : 0;
	v->by_held = v->held_waste > v->waste;
	v->waste = fmax(v->waste, v->held_waste);
	v->score = v->waste / p->max_split_ratio;
	evidence = fmax(fmax(exposure, j->made), v->held_whole + v->held_partly);
	v->fresh_pages = j->fresh_pages;
	v->members = j->members;
	v->coverage_mean = w->coverage_mean;
	v->coverage_min = w->coverage_min;
	v->coverage_max = w->coverage_max;
	if (e->mem_ok) {
		v->anon_bytes = e->mem.anon_bytes;
		v->thp_bytes = e->mem.thp_bytes;
	}
	v->judged = evidence > 0 && evidence >= (double)p->min_allocs;
	v->level = v->judged ? level_of_score(v->score) : CLASS_GOOD;
	v->unjudged_level = v->judged ? CLASS_GOOD : level_of_score(v->score);
	coverage_check(v, p);
}

void verdict_empty(struct cg_judge *j, struct verdict *v)
{
	assert(j && v);
	j->broken = 0;
	j->fresh_pages = 0;
	v->broken = v->waste = v->score = 0;
	v->held_whole = v->held_partly = v->held_waste = 0;
	v->held_judged = v->by_held = false;
	v->fresh_pages = 0;
	v->judged = false;
	v->level = v->unjudged_level = CLASS_GOOD;
	v->empty = true;
}

static const char *horizon_text(uint64_t ms, char *buf, size_t len)
{
	if (ms % 3600000 == 0)
		snprintf(buf, len, "%lluh", (unsigned long long)(ms / 3600000));
	else if (ms % 60000 == 0)
		snprintf(buf, len, "%llum", (unsigned long long)(ms / 60000));
	else
		snprintf(buf, len, "%.1fs", (double)ms / 1000.0);
	return buf;
}

/* The figures that decided the waste: those of its life, or, when what it
 * holds now says more, those (its life's are in the JSON). */
static int waste_text(const struct verdict *v, const struct policy *p, char *buf, size_t len)
{
	char hz[24];

	if (v->by_held)
		return snprintf(
		    buf, len, "waste %.2f (max %.2f): %.1f of %.1f THPs held partly mapped now",
		    v->waste, p->max_split_ratio, v->held_partly, v->held_whole + v->held_partly);
	return snprintf(buf, len,
			"waste %.2f (max %.2f): %.1f THPs broken of %.1f given, %.1f held at "
			"peak, %s half-life",
			v->waste, p->max_split_ratio, v->broken, v->given, v->held_peak,
			horizon_text(p->horizon_ms, hz, sizeof(hz)));
}

void verdict_evidence(const struct verdict *v, const struct policy *p, char *buf, size_t len)
{
	int n = waste_text(v, p, buf, len);

	if (n < 0 || (size_t)n >= len)
		return;
	if (v->empty)
		n += snprintf(buf + n, len - (size_t)n,
			      ", not judged (no live task, no anon memory)");
	else if (!v->judged)
		n += snprintf(buf + n, len - (size_t)n, ", not judged (< %llu THPs)",
			      (unsigned long long)p->min_allocs);
	else
		n += snprintf(buf + n, len - (size_t)n, ", score %.2f", v->score);
	if ((size_t)n < len && v->members > 1)
		n += snprintf(buf + n, len - (size_t)n, ", %u cgroups", v->members);
	if ((size_t)n >= len)
		return;
	n += snprintf(buf + n, len - (size_t)n, "; %.1fs window: +%llu allocs, +%llu splits",
		      (double)v->span_ms / 1000.0, (unsigned long long)v->allocs,
		      (unsigned long long)v->splits);
	if ((size_t)n >= len)
		return;
	if (v->coverage_mean >= 0)
		n += snprintf(buf + n, len - (size_t)n, ", coverage %.1f%%", v->coverage_mean);
	else
		n += snprintf(buf + n, len - (size_t)n, ", no anon memory");
	if ((size_t)n < len && p->sizes != POLICY_SIZES_PMD) /* THP units of every size judged */
		snprintf(buf + n, len - (size_t)n, "; sizes %s", policy_sizes_name(p->sizes));
}
