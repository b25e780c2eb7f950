/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The actor's follow-up of what its actions bought: each costed action is
 * followed (action_benefit.h), each follow-up audited as a "benefit" line
 * and handed to the hook (history), each final one noted per kind for the
 * near-zero flag (benefit_flag.h).
 */
#ifndef TAOD_ACT_BENEFIT_WATCH_H
#define TAOD_ACT_BENEFIT_WATCH_H

#include "action_benefit.h"
#include "benefit_flag.h"
#include "act/act_backend.h"

struct audit_log;

/* Called with every follow-up, after the audit log has it. */
typedef void (*benefit_hook_fn)(void *ctx, const struct action_benefit *b);

struct benefit_watch {
	struct benefit_tracker t;
	struct benefit_log logs[ACTION_KIND_MAX];
	struct benefit_source src;
	benefit_hook_fn hook;
	void *hook_ctx;
};

/* Follows @rec if its cost was measured and @after_ms is not 0 (off). */
void benefit_watch_action(struct benefit_watch *w, const struct action_record *rec, uint64_t now_ms,
			  uint64_t after_ms);

/* The follow-ups due at @now_ms (free blocks read only when one is);
 * how many. */
int benefit_watch_tick(struct benefit_watch *w, const struct kernel_paths *k, uint64_t now_ms,
		       uint64_t after_ms, struct audit_log *audit);

#endif
