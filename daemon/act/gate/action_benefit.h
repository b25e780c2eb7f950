/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The benefit of an action, followed up (taod/action_cost.h): at the
 * action the actor notes the free PMD blocks and the tenants wanting THPs
 * then; a tick after_ms later, and again at BENEFIT_FINAL_TIMES that, it
 * compares: blocks regained, those tenants' coverage change and their
 * fallbacks per second since. Pure bookkeeping: the tick loop's readers
 * come in a benefit_source, the free blocks as arguments.
 */
#ifndef TAOD_ACT_ACTION_BENEFIT_H
#define TAOD_ACT_ACTION_BENEFIT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "taod/action.h"

#define BENEFIT_TENANTS	    8  /* wanting tenants followed per action */
#define BENEFIT_PENDING	    64 /* actions followed at once; more: the oldest is dropped */
#define BENEFIT_FINAL_TIMES 5  /* the last follow-up: after this many after_ms */

struct benefit_tenant {
	uint64_t id;
	double coverage; /* percent; -1: unknown */
	uint64_t fallbacks;
};

struct benefit_snapshot {
	uint64_t t_ms; /* monotonic */
	bool free_known;
	uint64_t free_pmd;
	unsigned n;
	struct benefit_tenant t[BENEFIT_TENANTS];
};

/* The tick loop's view of the tenants (pipeline.c); a NULL fn: none. */
struct benefit_source {
	/* The tenants wanting THPs now, at most @max into @out; how many. */
	unsigned (*wanting)(void *ctx, struct benefit_tenant *out, unsigned max);
	/* Tenant @id now (coverage -1 when unknown); false when it is gone. */
	bool (*tenant)(void *ctx, uint64_t id, struct benefit_tenant *out);
	void *ctx;
};

struct benefit_pending {
	bool used;
	unsigned step; /* follow-ups done */
	uint64_t id;   /* the audit record's */
	enum action_kind kind;
	uint64_t cpu_us; /* the action's, all phases: what the benefit is weighed against */
	char policy[64];
	char cgroup[256];
	struct benefit_snapshot then;
};

struct benefit_tracker {
	struct benefit_pending v[BENEFIT_PENDING];
};

/*
 * The benefit between @then and @now at @now's time; @now holds @then's
 * tenants as they are now (id 0: gone).
 */
void benefit_compute(const struct benefit_snapshot *then, const struct benefit_snapshot *now,
		     struct action_benefit *out);

/* Starts following @rec (its cost measured); @then its snapshot. */
void benefit_follow(struct benefit_tracker *t, const struct action_record *rec,
		    const struct benefit_snapshot *then);

/* The earliest follow-up due (monotonic ms) with @after_ms; UINT64_MAX: none. */
uint64_t benefit_next_due(const struct benefit_tracker *t, uint64_t after_ms);

typedef void (*benefit_emit_fn)(void *ctx, const struct benefit_pending *p,
				const struct action_benefit *b);
/*
 * Every follow-up due at @now_ms: @emit gets the action and its benefit;
 * an action's last one frees its slot. @free_known/@free_pmd: the free
 * PMD blocks now. Returns how many were emitted.
 */
int benefit_due(struct benefit_tracker *t, uint64_t now_ms, uint64_t after_ms, bool free_known,
		uint64_t free_pmd, const struct benefit_source *src, benefit_emit_fn emit,
		void *ctx);

/* The tenants wanting THPs now per @src (none without one) into @s. */
void benefit_snapshot_tenants(struct benefit_snapshot *s, const struct benefit_source *src);

#endif
