// SPDX-License-Identifier: GPL-2.0
/* Following up what an action bought (action_benefit.h). */
#include <stdio.h>
#include <string.h>

#include "action_benefit.h"

void benefit_compute(const struct benefit_snapshot *then, const struct benefit_snapshot *now,
		     struct action_benefit *out)
{
	uint64_t span = now->t_ms > then->t_ms ? now->t_ms - then->t_ms : 0, falls = 0;
	double sum = 0;

	memset(out, 0, sizeof(*out));
	out->after_ms = span;
	out->free_known = then->free_known && now->free_known;
	if (out->free_known)
		out->free_pmd_regained = (int64_t)now->free_pmd - (int64_t)then->free_pmd;
	out->wanting = then->n;
	for (unsigned i = 0; i < then->n && i < now->n; i++) {
		const struct benefit_tenant *a = &then->t[i], *b = &now->t[i];

		if (!b->id) /* gone since */
			continue;
		if (b->fallbacks > a->fallbacks)
			falls += b->fallbacks - a->fallbacks;
		if (a->coverage < 0 || b->coverage < 0)
			continue;
		sum += b->coverage - a->coverage;
		out->coverage_n++;
	}
	out->coverage_change = out->coverage_n ? sum / out->coverage_n : 0;
	out->fallback_rate = span ? falls * 1000.0 / span : 0;
}

void benefit_snapshot_tenants(struct benefit_snapshot *s, const struct benefit_source *src)
{
	s->n = src && src->wanting ? src->wanting(src->ctx, s->t, BENEFIT_TENANTS) : 0;
	if (s->n > BENEFIT_TENANTS)
		s->n = BENEFIT_TENANTS;
}

static uint64_t cpu_total(const struct action_cost *c)
{
	uint64_t sum = 0;

	for (int p = 0; p < PHASE_MAX; p++)
		sum += c->cpu_us[p];
	return sum;
}

/* A free slot, or the oldest action's (its follow-up is lost, not late). */
static struct benefit_pending *slot(struct benefit_tracker *t)
{
	struct benefit_pending *old = &t->v[0];

	for (size_t i = 0; i < BENEFIT_PENDING; i++) {
		if (!t->v[i].used)
			return &t->v[i];
		if (t->v[i].then.t_ms < old->then.t_ms)
			old = &t->v[i];
	}
	return old;
}

void benefit_follow(struct benefit_tracker *t, const struct action_record *rec,
		    const struct benefit_snapshot *then)
{
	struct benefit_pending *p = slot(t);

	*p = (struct benefit_pending){.used = true,
				      .id = rec->id,
				      .kind = rec->req.kind,
				      .cpu_us = cpu_total(&rec->cost),
				      .then = *then};
	snprintf(p->policy, sizeof(p->policy), "%s", rec->req.policy);
	snprintf(p->cgroup, sizeof(p->cgroup), "%s", rec->req.cgroup ? rec->req.cgroup : "");
}

static uint64_t due_at(const struct benefit_pending *p, uint64_t after_ms)
{
	return p->then.t_ms + after_ms * (p->step ? BENEFIT_FINAL_TIMES : 1);
}

uint64_t benefit_next_due(const struct benefit_tracker *t, uint64_t after_ms)
{
	uint64_t next = UINT64_MAX;

	for (size_t i = 0; i < BENEFIT_PENDING; i++)
		if (t->v[i].used && due_at(&t->v[i], after_ms) < next)
			next = due_at(&t->v[i], after_ms);
	return next;
}

/* @p's tenants as they are now. */
static void now_snapshot(const struct benefit_pending *p, uint64_t now_ms, bool free_known,
			 uint64_t free_pmd, const struct benefit_source *src,
			 struct benefit_snapshot *now)
{
	*now = (struct benefit_snapshot){
	    .t_ms = now_ms, .free_known = free_known, .free_pmd = free_pmd, .n = p->then.n};
	for (unsigned i = 0; i < p->then.n; i++)
		if (!src || !src->tenant || !src->tenant(src->ctx, p->then.t[i].id, &now->t[i]))
			now->t[i].id = 0;
}

int benefit_due(struct benefit_tracker *t, uint64_t now_ms, uint64_t after_ms, bool free_known,
		uint64_t free_pmd, const struct benefit_source *src, benefit_emit_fn emit,
		void *ctx)
{
	int n = 0;

	for (size_t i = 0; i < BENEFIT_PENDING; i++) {
		struct benefit_pending *p = &t->v[i];
		struct benefit_snapshot now;
		struct action_benefit b;

		if (!p->used || due_at(p, after_ms) > now_ms)
			continue;
		now_snapshot(p, now_ms, free_known, free_pmd, src, &now);
		benefit_compute(&p->then, &now, &b);
		b.id = p->id;
		b.final = ++p->step >= 2;
		emit(ctx, p, &b);
		p->used = !b.final;
		n++;
	}
	return n;
}
