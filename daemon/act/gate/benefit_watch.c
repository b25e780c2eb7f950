// SPDX-License-Identifier: GPL-2.0
/* The actor's follow-up of its actions' benefit (benefit_watch.h). */
#include "benefit_watch.h"
#include "audit.h"
#include "free_blocks.h"

void benefit_watch_action(struct benefit_watch *w, const struct action_record *rec, uint64_t now_ms,
			  uint64_t after_ms)
{
	struct benefit_snapshot then = {.t_ms = now_ms,
					.free_known = rec->cost.free_known,
					/* before it: what the action regained is its own */
					.free_pmd = rec->cost.free_pmd_before};

	if (!rec->cost.measured || !after_ms)
		return;
	benefit_snapshot_tenants(&then, &w->src);
	benefit_follow(&w->t, rec, &then);
}

struct emit_ctx {
	struct benefit_watch *w;
	struct audit_log *audit;
};

static void emit(void *ctx, const struct benefit_pending *p, const struct action_benefit *b)
{
	struct emit_ctx *e = ctx;

	audit_benefit(e->audit, p->kind, p->cgroup, p->policy, b);
	if (b->final && (unsigned)p->kind < ACTION_KIND_MAX)
		benefit_log_add(&e->w->logs[p->kind], b, p->cpu_us);
	if (e->w->hook)
		e->w->hook(e->w->hook_ctx, b);
}

int benefit_watch_tick(struct benefit_watch *w, const struct kernel_paths *k, uint64_t now_ms,
		       uint64_t after_ms, struct audit_log *audit)
{
	struct emit_ctx e = {w, audit};
	uint64_t free_pmd = 0;
	bool free_known;

	if (!after_ms || benefit_next_due(&w->t, after_ms) > now_ms)
		return 0;
	free_known = !free_thp_blocks(k, &free_pmd);
	return benefit_due(&w->t, now_ms, after_ms, free_known, free_pmd, &w->src, emit, &e);
}
