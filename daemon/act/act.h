/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The act stage's public face, the actor: a safety gate in front of one
 * kernel backend (act_backend.h), chosen at start (TAO, stock or dry-run).
 * Every request decide hands over is carried out or suppressed, and
 * audited either way (see audit.h).
 */
#ifndef TAOD_ACT_H
#define TAOD_ACT_H

#include <stdbool.h>
#include <stdint.h>

#include <systemd/sd-event.h>

#include "act_backend.h"
#include "act/gate/action_queue.h"
#include "act/gate/benefit_watch.h"

struct actor;
struct action_record;

/* @s, @k and @tree must outlive the actor (they are the daemon's). */
int actor_open(struct actor **out, const struct act_settings *s, const struct kernel_paths *k,
	       const struct cgroup_tree *tree, const struct act_backend_ops *backend);
void actor_close(struct actor *a);
/* After a reload: new settings, same backend, budgets and back-offs kept. */
void actor_set_settings(struct actor *a, const struct act_settings *s,
			const struct kernel_paths *k);
/* The probed kernel (must outlive the actor): the TAO backend acts only
 * through the features it has. Without it every feature is assumed. */
void actor_set_kernel(struct actor *a, const struct kernel_info *k);
void actor_set_clock(struct actor *a, uint64_t (*now_ms)(void));
/* Where the cgroup walk last saw a cgroup, by id (act_ctx.cgroup_path):
 * a restriction is put back on a renamed cgroup too. */
void actor_set_cgroup_paths(struct actor *a, const char *(*fn)(void *ctx, uint64_t id), void *ctx);
/* The machine's contiguity pressure now and the good tenants wanting THPs
 * (decide's last pass): compaction after a shatter needs one or the other. */
void actor_set_need(struct actor *a, enum pressure_level level, unsigned wanting);
const char *actor_backend_name(const struct actor *a);
/* Whether an action on @cgroup under a policy with @policy_dry_run would
 * reach the kernel: enforce mode, the policy opted in, not protected. */
bool actor_can_reach(const struct actor *a, const char *cgroup, bool policy_dry_run);
int actor_read_stats(struct actor *a, struct act_stats *out);
/*
 * Gate, carry out, audit, here in the caller. Fills @rec (may be NULL)
 * with the audit record. Never fails: failures are results.
 */
enum action_result actor_submit(struct actor *a, const struct action_request *req,
				struct action_record *rec);
/*
 * The loop off which kinds whose row says off_loop are carried out, one at
 * a time, in an offload child (common/offload.h). Without it (NULL, the
 * default) every kind is carried out in the caller.
 */
void actor_set_event(struct actor *a, sd_event *e);
/*
 * Like actor_submit, then @done(@ctx, record) (NULL: nobody told): at once,
 * or for an off-loop kind when its child ends. A request for what is
 * already under way or waiting (same kind and cgroup) backs off; more than
 * ACTION_QUEUE_MAX waiting are rate-limited.
 */
void actor_submit_then(struct actor *a, const struct action_request *req, action_done_fn done,
		       void *ctx);
/* Actions under way off the loop or waiting for it. */
unsigned actor_pending(const struct actor *a);
/* Records every waiting request as not carried out (taod exiting). */
void actor_drop_pending(struct actor *a);
struct audit_log *actor_audit(const struct actor *a);
/* Called with every audited record, after the audit log has it. */
typedef void (*actor_record_fn)(void *ctx, const struct action_record *rec);
void actor_set_record_hook(struct actor *a, actor_record_fn fn, void *ctx);
/*
 * The benefit follow-up (benefit_watch.h): where the tenants wanting THPs
 * are read (the tick loop's), and the hook each follow-up goes to.
 */
void actor_set_benefit_source(struct actor *a, const struct benefit_source *src);
void actor_set_benefit_hook(struct actor *a, benefit_hook_fn fn, void *ctx);
/*
 * Whether @kind's last actions bought next to nothing (benefit_flag.h);
 * *@followed: its final follow-ups so far (at most BENEFIT_FLAG_ACTIONS),
 * @why: the numbers.
 */
bool actor_benefit_flag(const struct actor *a, enum action_kind kind, unsigned *followed, char *why,
			size_t len);
/*
 * The last collapse (reward) asked for a cgroup that was not held back by a
 * back-off, and the back-off it started.
 */
struct reward_state {
	enum action_result result; /* RESULT_DONE: it collapsed gained_bytes */
	uint64_t ago_ms;
	uint64_t gained_bytes;
	uint64_t retry_in_ms; /* back-off left after a failure or a collapse that gained nothing */
	char detail[256];
};

/* 0, or -ENOENT when no collapse was asked for @cgroup. */
int actor_reward_state(const struct actor *a, const char *cgroup, struct reward_state *out);
/*
 * Puts back what bounded actions changed once their time is up (the stock
 * restrict, memory_limit.h), each audited as a grant; the first call after
 * actor_open() puts back every one a crashed taod left. Call once per tick.
 * Returns how many were put back.
 */
int actor_tick(struct actor *a);
/* Puts back every bounded action in force (taod exiting); how many. */
int actor_release(struct actor *a);
/* decide's action sink: @actor is the struct actor. */
void actor_sink(void *actor, const struct action_request *req);
/*
 * decide's zone_view_fn: the NoSplit zone now and the target a resize for
 * @demand would aim at (demand + headroom, within bounds).
 */
int actor_zone_view(void *actor, uint64_t demand, struct zone_view *out);

#endif
