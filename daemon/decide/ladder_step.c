// SPDX-License-Identifier: GPL-2.0
/*
 * What a judged window asks for. A window is a strike when the tenant's
 * class and the window's level are both at or above the policy's act_on
 * class (misuser or abuser), it is outside its cooldown, and the tenant
 * broke THPs since its last strike: the verdict looks back over the
 * horizon, but each punishment needs waste it has not yet answered for,
 * so a tenant that stopped is not struck again and again for its past.
 * A strike asks for the ladder rung it has reached (the top rung
 * repeats), and every action starts a cooldown in which windows are
 * judged but strike nothing. A good cgroup under its
 * coverage guarantee is rewarded (GRANT on TAO kernels, COLLAPSE on stock
 * ones), also at most once per cooldown; one that was restricted gets its
 * zones granted back as soon as it is good again. On a TAO kernel without
 * memory.thp_zones (boot-sized zones only) there is neither: the restrict
 * rung gives way to the next one up (shatter, or warn when the ladder
 * stops at restrict) and rewards collapse, as on stock.
 *
 * A policy with act_when = need climbs only while someone needs the
 * contiguity: the machine is under contiguity pressure, or a good tenant
 * wants THPs (io->need). Otherwise a strike that would climb past warn
 * warns instead and is not counted, so the ladder stays where it was; and
 * a collapse is asked for only where free PMD-order blocks are above the
 * floor it needs.
 */
#include <assert.h>

#include "decide.h"
#include "common/sat_math.h"

static bool reward_due(const struct cg_judge *j, const struct verdict *v)
{
	return j->cls == CLASS_GOOD && v->below_guarantee && v->reward_bytes >= DECIDE_THP_BYTES;
}

/* A collapse needs free blocks to put THPs in; unknown counts as room. */
static bool collapse_has_room(const struct decide_io *io)
{
	const struct decide_need *n = io->need;

	return !n || !n->free_known || n->free_pmd_blocks > n->reward_free_blocks;
}

/* act_when = need with nobody needing contiguity: the ladder holds. */
static bool need_holds(const struct policy *p, const struct decide_io *io)
{
	return !p->act_always && io->need && io->need->pressure == PRESSURE_NONE &&
	       !io->need->wanting;
}

static void start_cooldown(struct cg_judge *j, const struct policy *p, uint64_t now_ms)
{
	j->cooldown_until_ms = sat_add_u64(now_ms, p->cooldown_ms);
}

/* Restrict without memory.thp_zones cannot work: the next rung up, or warn without one. */
static enum ladder_rung usable_rung(const struct policy *p, enum ladder_rung r, bool no_memcg_zones)
{
	if (r != RUNG_RESTRICT || !no_memcg_zones)
		return r;
	return p->ladder[RUNG_SHATTER] ? RUNG_SHATTER : RUNG_WARN;
}

/*
 * Nobody needs the contiguity: the strike is not counted and warns once
 * instead of climbing. Its waste stays unanswered (fresh_pages kept), so the
 * first window under need takes the rung it holds, even if the tenant broke
 * nothing since: what it strands is what the wanting tenant lacks.
 */
static bool hold_at_warn(struct cg_judge *j, const struct policy *p, uint64_t now_ms,
			 enum ladder_rung rung, enum action_kind *kind)
{
	if (j->held_warned)
		return false;
	j->held_warned = true;
	j->held = true;
	j->held_kind = ladder_rung_kind(rung);
	*kind = ACTION_WARN;
	start_cooldown(j, p, now_ms);
	return true;
}

static bool strike(struct cg_judge *j, const struct policy *p, uint64_t now_ms,
		   const struct decide_io *io, enum action_kind *kind)
{
	enum ladder_rung rung =
	    usable_rung(p, ladder_rung_for(p, j->strikes + 1), io->no_memcg_zones);

	if (rung > RUNG_WARN && need_holds(p, io))
		return hold_at_warn(j, p, now_ms, rung, kind);
	j->strikes++;
	j->fresh_pages = 0;
	j->held_warned = false;
	if (rung == RUNG_OBSERVE)
		return false;
	*kind = ladder_rung_kind(rung);
	j->restricted |= *kind == ACTION_RESTRICT;
	start_cooldown(j, p, now_ms);
	return true;
}

bool ladder_step(struct cg_judge *j, const struct verdict *v, const struct policy *p,
		 bool class_moved, const struct decide_io *io, uint64_t now_ms,
		 enum action_kind *kind)
{
	assert(j);
	assert(v);
	assert(p);
	assert(io);
	assert(kind);
	assert(v->level < CLASS_MAX);

	bool cooling = now_ms < j->cooldown_until_ms;
	enum cg_class least = verdict_strike_class(p);

	if (j->cls < least) {
		j->strikes = 0;
		j->held_warned = false;
	}
	if (class_moved && j->cls == CLASS_GOOD && j->restricted) {
		j->restricted = false;
		*kind = ACTION_GRANT;
		return true;
	}
	if (j->cls >= least && v->level >= least && v->fresh_pages && !cooling)
		return strike(j, p, now_ms, io, kind);
	if (!cooling && reward_due(j, v)) {
		*kind = io->tao_kernel && !io->no_memcg_zones ? ACTION_GRANT : ACTION_COLLAPSE;
		if (*kind == ACTION_COLLAPSE && !collapse_has_room(io))
			return false;
		start_cooldown(j, p, now_ms);
		return true;
	}
	return false;
}

/* The first judgement at or after @t. */
static uint64_t judgement_at_or_after(const struct cg_judge *j, const struct policy *p, uint64_t t)
{
	uint64_t due = j->next_judge_ms;

	if (due < t)
		due += (t - due + p->window_ms - 1) / p->window_ms * p->window_ms;
	return due;
}

/* The next strike that asks for an action, counted from the current one. */
static unsigned strikes_to_action(const struct cg_judge *j, const struct policy *p,
				  bool no_memcg_zones, enum action_kind *kind)
{
	for (unsigned s = j->strikes + 1; s <= j->strikes + RUNG_MAX * 1000u; s++) {
		enum ladder_rung r = usable_rung(p, ladder_rung_for(p, s), no_memcg_zones);

		if (r != RUNG_OBSERVE) {
			*kind = ladder_rung_kind(r);
			return s - j->strikes;
		}
	}
	return 0;
}

bool decide_next_action(const struct cg_judge *j, const struct policy *p, bool tao_kernel,
			bool no_memcg_zones, enum action_kind *kind, uint64_t *due_ms)
{
	assert(j);
	assert(p);
	assert(kind);
	assert(due_ms);
	assert(p->window_ms > 0); /* config keeps it >= 10 ms: a divisor below */

	uint64_t first = judgement_at_or_after(j, p, j->cooldown_until_ms);
	unsigned n;

	if (j->cls >= verdict_strike_class(p)) {
		n = strikes_to_action(j, p, no_memcg_zones, kind);
		*due_ms = first + (uint64_t)(n ? n - 1 : 0) * p->window_ms;
		return n > 0;
	}
	if (j->has_verdict && reward_due(j, &j->last)) {
		*kind = tao_kernel && !no_memcg_zones ? ACTION_GRANT : ACTION_COLLAPSE;
		*due_ms = first;
		return true;
	}
	return false;
}
