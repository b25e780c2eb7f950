// SPDX-License-Identifier: GPL-2.0
/*
 * The safety gate. Each request passes, in order: is the target still
 * there; is it protected (root, taod's own cgroup and its ancestors, the
 * allowlist); does it hold anything (a tenant with no task and no anon
 * memory shut down: decide's requests stop there, but a grant); does the mode or the policy say
 * dry-run; is there budget left (actions and bytes per minute); is an earlier failure still backing
 * off. A collapse first needs a free 2 MiB block to collapse into: without
 * one it is not possible, and says so without spending the budget. Only
 * then does the backend act. Every request ends in the audit log.
 */
#define _GNU_SOURCE
#include <assert.h>
#include <errno.h>
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "act/act.h"
#include "rate_limit.h"
#include "act/backoff.h"
#include "reward_state.h"
#include "free_blocks.h"
#include "holds_nothing.h"
#include "act/read/proc_tasks.h"
#include "act/tao/zone_sizing.h"
#include "audit.h"
#include "common/cgroup_dir.h"
#include "action_cost.h"
#include "benefit_watch.h"
#include "common/cgroup_path.h"
#include "common/clock.h"

#define AUDIT_RING 1024

struct actor {
	struct act_settings s; /* copies: a reload frees the config */
	struct kernel_paths k;
	const struct cgroup_tree *tree;
	const struct act_backend_ops *be;
	struct act_ctx ctx;
	struct rate_limit rl;
	struct backoff_table failures; /* per "kind cgroup" */
	struct backoff_table busy_blocks;
	struct reward_table rewards; /* the last collapse per cgroup */
	struct compact_gate compact;
	struct audit_log *audit;
	actor_record_fn on_record; /* e.g. the history database */
	void *on_record_ctx;
	bool swept; /* what a crashed taod left restricted is put back at the first tick */
	struct benefit_watch benefit; /* what each costed action bought, minutes later */
};

void actor_set_benefit_source(struct actor *a, const struct benefit_source *src)
{
	a->benefit.src = *src;
}

void actor_set_benefit_hook(struct actor *a, benefit_hook_fn fn, void *ctx)
{
	a->benefit.hook = fn;
	a->benefit.hook_ctx = ctx;
}

bool actor_benefit_flag(const struct actor *a, enum action_kind kind, unsigned *followed, char *why,
			size_t len)
{
	const struct benefit_log *l =
	    (unsigned)kind < ACTION_KIND_MAX ? &a->benefit.logs[kind] : NULL;

	*followed = l ? l->n : 0;
	if (!l) {
		snprintf(why, len, "no such action kind");
		return false;
	}
	return benefit_near_zero(l, why, len);
}

void actor_set_record_hook(struct actor *a, actor_record_fn fn, void *ctx)
{
	a->on_record = fn;
	a->on_record_ctx = ctx;
}

int actor_open(struct actor **out, const struct act_settings *s, const struct kernel_paths *k,
	       const struct cgroup_tree *tree, const struct act_backend_ops *backend)
{
	assert(out);
	assert(s);
	assert(k);
	assert(tree);
	assert(backend);

	struct actor *a = calloc(1, sizeof(*a));

	if (!a)
		return -ENOMEM;
	a->s = *s;
	a->k = *k;
	a->tree = tree;
	a->be = backend;
	a->audit = audit_open(s->audit_log, AUDIT_RING);
	if (!a->audit) {
		free(a);
		return -ENOMEM;
	}
	a->ctx = (struct act_ctx){.k = &a->k,
				  .tree = tree,
				  .s = &a->s,
				  .busy_blocks = &a->busy_blocks,
				  .now_ms = monotonic_ms,
				  .compact = &a->compact};
	*out = a;
	return 0;
}

void actor_close(struct actor *a)
{
	if (!a)
		return;
	audit_close(a->audit);
	backoff_free(&a->failures);
	backoff_free(&a->busy_blocks);
	reward_table_free(&a->rewards);
	free(a);
}

void actor_set_settings(struct actor *a, const struct act_settings *s, const struct kernel_paths *k)
{
	assert(a);
	assert(s);
	assert(k);
	a->s = *s;
	a->k = *k;
	audit_set_path(a->audit, s->audit_log);
}

void actor_set_kernel(struct actor *a, const struct kernel_info *k)
{
	a->ctx.kernel = k;
}

void actor_set_cgroup_paths(struct actor *a, const char *(*fn)(void *ctx, uint64_t id), void *ctx)
{
	a->ctx.cgroup_path = fn;
	a->ctx.cgroup_path_ctx = ctx;
}

void actor_set_need(struct actor *a, enum pressure_level level, unsigned wanting)
{
	a->compact.pressure = level;
	a->compact.wanting = wanting;
}

void actor_set_clock(struct actor *a, uint64_t (*now_ms)(void))
{
	a->ctx.now_ms = now_ms;
}

const char *actor_backend_name(const struct actor *a)
{
	return a->be->name;
}

int actor_read_stats(struct actor *a, struct act_stats *out)
{
	return a->be->read_stats(&a->ctx, out);
}

struct audit_log *actor_audit(const struct actor *a)
{
	return a->audit;
}

static bool machine_wide(const struct action_request *req)
{
	const struct action_kind_row *row = action_kind_row(req->kind);

	return row && row->machine_wide;
}

static bool moves_bytes(const struct action_request *req)
{
	const struct action_kind_row *row = action_kind_row(req->kind);

	return row && row->bytes;
}

/* The backend takes its own pidfd and checks again; this names the result. */
static bool task_vanished(const struct actor *a, const struct action_request *req,
			  struct act_outcome *o)
{
	struct task_ref t;
	bool gone = task_ref_open(&t, req->pid) != 0, moved = false;

	if (!gone)
		moved = !task_ref_in_cgroup(a->tree, &t, req->cgroup);
	task_ref_close(&t);
	if (gone)
		act_outcome_set(o, RESULT_VANISHED, ESRCH, "task %d is gone", (int)req->pid);
	else if (moved)
		act_outcome_set(o, RESULT_VANISHED, ESRCH, "task %d is no longer in %s",
				(int)req->pid, req->cgroup);
	return gone || moved;
}

/* Gone, or not a path inside the hierarchy at all. */
static bool vanished(const struct actor *a, const struct action_request *req, struct act_outcome *o)
{
	struct stat st;
	char why[96];
	int dir;

	/* One spelling per cgroup, or "//" and "/a/./b" would dodge protected(). */
	if (!cgroup_path_canonical(req->cgroup, why, sizeof(why))) {
		act_outcome_set(o, RESULT_VANISHED, EINVAL, "\"%.200s\" is not a cgroup path: %s",
				req->cgroup, why);
		return true;
	}
	dir = cgroup_dir_open(a->tree, req->cgroup);
	if (dir < 0 || fstat(dir, &st)) {
		if (dir >= 0)
			close(dir);
		act_outcome_set(o, RESULT_VANISHED, ENOENT, "cgroup %s is gone", req->cgroup);
		return true;
	}
	close(dir);
	/* Removed and made again since it was judged: not the cgroup judged. */
	if (req->cgroup_id && (uint64_t)st.st_ino != req->cgroup_id) {
		act_outcome_set(o, RESULT_VANISHED, ESTALE,
				"cgroup %s is now id %llu, judged as %llu", req->cgroup,
				(unsigned long long)st.st_ino, (unsigned long long)req->cgroup_id);
		return true;
	}
	return req->pid && task_vanished(a, req, o);
}

/*
 * A tenant that shut down (no task, no anon memory): nothing left for
 * decide to warn, restrict, shatter or collapse. A grant only puts back
 * what was taken; an operator's `taoctl act` is carried out as asked.
 */
static bool shut_down(const struct actor *a, const struct action_request *req,
		      struct act_outcome *o)
{
	if (req->asked || req->kind == ACTION_GRANT ||
	    !cgroup_holds_nothing(a->tree, &a->k, req->cgroup))
		return false;
	act_outcome_set(o, RESULT_VANISHED, ESRCH,
			"cgroup %s holds no task and no anon memory (it shut down): nothing to %s",
			req->cgroup, action_kind_name(req->kind));
	return true;
}

/* "/a/b" -> "/a", "/a" -> "/". */
static void to_parent(char *path)
{
	char *cut = strrchr(path, '/');

	cut[cut == path] = '\0';
}

/*
 * 1 when an entry protects @cgroup: the entry in @which, and in *@anc (to
 * free) the path it matched, @cgroup itself or an ancestor. "=GLOB" matches
 * the cgroup alone; a bare glob matches it or any ancestor, so it protects
 * a subtree. 0 when none does, -ENOMEM when it could not be told.
 */
static int allowlist_match(const char *list, const char *cgroup, char *which, size_t len,
			   char **anc)
{
	char copy[sizeof(((struct act_settings *)0)->allowlist)], *save = NULL;
	char *up = strdup(cgroup);

	*anc = NULL;
	if (!up)
		return -ENOMEM;
	snprintf(copy, sizeof(copy), "%s", list);
	for (char *g = strtok_r(copy, " \t,", &save); g; g = strtok_r(NULL, " \t,", &save)) {
		bool exact = g[0] == '=';

		strcpy(up, cgroup);
		for (;;) {
			if (!fnmatch(g + exact, up, 0)) {
				snprintf(which, len, "%s", g);
				*anc = up;
				return 1;
			}
			if (exact || !strcmp(up, "/"))
				break;
			to_parent(up);
		}
	}
	free(up);
	return 0;
}

static bool protected(const struct actor *a, const struct action_request *req,
		      struct act_outcome *o)
{
	char glob[256], *anc;
	int r;

	if (!strcmp(req->cgroup, "/")) {
		act_outcome_set(o, RESULT_ALLOWLISTED, 0, "the root cgroup is never acted on");
		return true;
	}
	if (a->tree->self_unknown) {
		act_outcome_set(o, RESULT_ALLOWLISTED, 0,
				"taod's own cgroup is too deep for /proc/self/cgroup to name");
		return true;
	}
	if (cgroup_path_within(a->tree->self, req->cgroup)) {
		act_outcome_set(o, RESULT_ALLOWLISTED, 0, "%s holds taod itself (%s)", req->cgroup,
				a->tree->self);
		return true;
	}
	r = allowlist_match(a->s.allowlist, req->cgroup, glob, sizeof(glob), &anc);
	if (r < 0) /* never act on what could not be checked */
		act_outcome_set(o, RESULT_FAILED, -r, "cannot check the allowlist");
	if (r <= 0)
		return r < 0;
	if (glob[0] == '=')
		act_outcome_set(o, RESULT_ALLOWLISTED, 0, "allowlisted by \"%s\" (exact)", glob);
	else if (!strcmp(anc, req->cgroup))
		act_outcome_set(o, RESULT_ALLOWLISTED, 0, "allowlisted by \"%s\" (the cgroup)",
				glob);
	else
		act_outcome_set(o, RESULT_ALLOWLISTED, 0, "allowlisted by \"%s\" (subtree of %s)",
				glob, anc);
	free(anc);
	return true;
}

bool actor_can_reach(const struct actor *a, const char *cgroup, bool policy_dry_run)
{
	assert(a);
	assert(cgroup);

	struct action_request req = {.cgroup = cgroup};
	struct act_outcome o;

	if (a->s.mode != ACT_MODE_ENFORCE || policy_dry_run)
		return false;
	return !protected(a, &req, &o);
}

static bool dry_run(const struct actor *a, const struct action_request *req, struct act_outcome *o)
{
	const char *why = a->s.mode == ACT_MODE_OBSERVE ? "observe mode"
			  : !req->dry_run		? NULL
			  : req->asked			? "dry-run (asked)"
							: "policy dry-run";

	if (why)
		act_outcome_set(o, RESULT_DRY_RUN, 0, "%s: would %s %s", why,
				action_kind_name(req->kind),
				machine_wide(req) ? "the policy zones" : req->cgroup);
	return why != NULL;
}

static bool rate_limited(struct actor *a, const struct action_request *req, struct act_outcome *o)
{
	rate_limit_refill(&a->rl, &a->s, a->ctx.now_ms());
	if (!rate_limit_action_left(&a->rl)) {
		act_outcome_set(o, RESULT_RATE_LIMITED, 0, "%llu actions per minute spent",
				(unsigned long long)a->s.actions_per_minute);
		return true;
	}
	if (moves_bytes(req) && !rate_limit_bytes_left(&a->rl)) {
		act_outcome_set(o, RESULT_RATE_LIMITED, 0, "%llu bytes per minute spent",
				(unsigned long long)a->s.shatter_bytes_per_minute);
		return true;
	}
	return false;
}

/*
 * Per kind, cgroup and task (0: the whole tenant): a fruitless try at the
 * whole cgroup says nothing of one aimed at a task, nor the reverse.
 */
static void backoff_key(enum action_kind kind, const char *cgroup, pid_t pid, char *key, size_t len)
{
	/* The hash tells apart deep cgroups whose paths share the key's first bytes. */
	uint64_t h = 1469598103934665603ULL; /* FNV-1a */

	for (const unsigned char *c = (const unsigned char *)cgroup; *c; c++)
		h = (h ^ *c) * 1099511628211ULL;
	snprintf(key, len, "%s %016llx %d %.270s", action_kind_name(kind), (unsigned long long)h,
		 (int)pid, cgroup);
}

static bool backing_off(const struct actor *a, const struct action_request *req,
			struct act_outcome *o)
{
	char key[320];
	uint64_t wait;

	backoff_key(req->kind, req->cgroup, req->pid, key, sizeof(key));
	wait = backoff_wait_ms(&a->failures, key, a->ctx.now_ms());
	if (wait)
		act_outcome_set(o, RESULT_BACKING_OFF, 0,
				"an earlier failure or fruitless try backs off for %llu ms",
				(unsigned long long)wait);
	return wait != 0;
}

/*
 * A collapse allocates a THP per 2 MiB it collapses: with no free 2 MiB
 * block left the guarantee cannot be met now. An unreadable buddyinfo
 * says nothing either way: the collapse is tried.
 */
static bool no_room(const struct actor *a, const struct action_request *req, struct act_outcome *o)
{
	uint64_t blocks;

	if (req->kind != ACTION_COLLAPSE || free_thp_blocks(&a->k, &blocks) || blocks)
		return false;
	act_outcome_set(o, RESULT_NOT_POSSIBLE, 0,
			"no free 2 MiB blocks: the guarantee cannot be met now");
	return true;
}

/*
 * The backend's op for @k, NULL when it has none or its settings withhold
 * it (then *@why, if given, says which setting turns it on).
 */
static act_op_fn backend_op(const struct actor *a, enum action_kind k, const char **why)
{
	act_op_fn op = (unsigned)k < ACTION_KIND_MAX ? a->be->op[k] : NULL;
	const char *off = op && a->be->withheld ? a->be->withheld(&a->ctx, k) : NULL;

	if (why)
		*why = off;
	return off ? NULL : op;
}

/* The backend's call, costed: its time by phase, vmstat deltas, free blocks. */
static void costed(struct actor *a, act_op_fn op, const struct action_request *req, uint64_t budget,
		   struct act_outcome *o, struct action_cost *cost)
{
	struct cost_run run;

	action_cost_begin(&run, &a->k, cost);
	a->ctx.cost = cost;
	op(&a->ctx, req, budget, o);
	a->ctx.cost = NULL;
	/* The dry-run backend did nothing: no cost, and no follow-up that
	 * would credit the kernel's own work in the next minutes to it. */
	if (o->result == RESULT_DRY_RUN)
		return;
	action_cost_end(&run, &a->k, cost);
}

/* Past the gate: act, charge the budgets, and back off on failure. */
static void carry_out(struct actor *a, const struct action_request *req, struct act_outcome *o,
		      struct action_cost *cost)
{
	uint64_t left = rate_limit_bytes_left(&a->rl);
	uint64_t budget = req->bytes && req->bytes < left ? req->bytes : left;
	act_op_fn op = backend_op(a, req->kind, NULL);
	char key[320];
	size_t n;

	if (req->kind == ACTION_WARN) {
		act_outcome_set(o, RESULT_DONE, 0, "warned");
		return;
	}
	if (!op) {
		act_outcome_set(o, RESULT_UNSUPPORTED, EINVAL, "unknown action kind %d", req->kind);
		return;
	}
	costed(a, op, req, budget, o, cost);
	/* The budget pays for kernel work: a request that made none takes no token. */
	if (!o->kernel_untouched)
		rate_limit_take(&a->rl, moves_bytes(req) ? o->bytes : 0);
	backoff_key(req->kind, req->cgroup, req->pid, key, sizeof(key));
	/* A collapse that gained nothing would gain nothing again soon: back off too. */
	if (o->result != RESULT_FAILED && o->result != RESULT_NO_GAIN) {
		backoff_clear(&a->failures, key);
		return;
	}
	n = strlen(o->detail);
	snprintf(o->detail + n, sizeof(o->detail) - n, "; retry in %llu s",
		 (unsigned long long)backoff_fail(&a->failures, key, a->ctx.now_ms()) / 1000);
}

/*
 * A lever the backend lacks (NULL: the stock backend's zone levers) is
 * unsupported in every mode: a dry run saying it "would" resize would lie.
 * One its settings turn off says which setting turns it on.
 */
static bool unsupported(const struct actor *a, const struct action_request *req,
			struct act_outcome *o)
{
	const char *off;

	if (req->kind == ACTION_WARN || backend_op(a, req->kind, &off))
		return false;
	if (off)
		act_outcome_set(o, RESULT_UNSUPPORTED, 0, "%s is off in the %s backend: %s",
				action_kind_name(req->kind), a->be->name, off);
	else
		act_outcome_set(o, RESULT_UNSUPPORTED, 0,
				"%s needs the TAO kernel's policy zones; the %s backend has none",
				action_kind_name(req->kind), a->be->name);
	return true;
}

static void gate(struct actor *a, const struct action_request *req, struct act_outcome *o,
		 struct action_cost *cost)
{
	if (!machine_wide(req) &&
	    (vanished(a, req, o) || protected(a, req, o) || shut_down(a, req, o)))
		return;
	if (unsupported(a, req, o) || dry_run(a, req, o) || no_room(a, req, o))
		return;
	if (req->kind != ACTION_WARN && (rate_limited(a, req, o) || backing_off(a, req, o)))
		return;
	carry_out(a, req, o, cost);
}

enum action_result actor_submit(struct actor *a, const struct action_request *req,
				struct action_record *rec)
{
	assert(a);
	assert(req);
	/* decide and control name kinds from the table */
	assert((unsigned)req->kind < ACTION_KIND_MAX);

	struct action_record local = {0};
	struct act_outcome o = {0};
	uint64_t start;

	if (!rec)
		rec = &local;
	memset(rec, 0, sizeof(*rec));
	rec->req = *req;
	if (!rec->req.cgroup)
		rec->req.cgroup = ""; /* machine-wide */
	start = a->ctx.now_ms();
	gate(a, &rec->req, &o, &rec->cost);
	rec->took_ms = a->ctx.now_ms() > start ? a->ctx.now_ms() - start : 0;
	rec->result = o.result;
	rec->err = o.err;
	snprintf(rec->detail, sizeof(rec->detail), "%s", o.detail);
	rec->shatter = o.shatter;
	if (rec->shatter.split_counted &&
	    (rec->cost.kernel_present & (1u << COST_pgmigrate_success)))
		rec->shatter.pages_migrated = rec->cost.kernel[COST_pgmigrate_success];
	audit_record(a->audit, rec);
	benefit_watch_action(&a->benefit, rec, a->ctx.now_ms(), a->s.benefit_after_ms);
	/* Backing off keeps what started the back-off: that says why. */
	if (req->kind == ACTION_COLLAPSE && o.result != RESULT_BACKING_OFF)
		reward_table_put(&a->rewards, req->cgroup, &o, a->ctx.now_ms());
	if (a->on_record)
		a->on_record(a->on_record_ctx, rec);
	return o.result;
}

int actor_reward_state(const struct actor *a, const char *cgroup, struct reward_state *out)
{
	assert(a);
	assert(cgroup);
	assert(out);

	const struct reward_entry *e = reward_table_get(&a->rewards, cgroup);
	uint64_t now = a->ctx.now_ms();
	char key[320];

	if (!e)
		return -ENOENT;
	out->result = e->result;
	out->ago_ms = now > e->at_ms ? now - e->at_ms : 0;
	out->gained_bytes = e->gained_bytes;
	snprintf(out->detail, sizeof(out->detail), "%s", e->detail);
	backoff_key(ACTION_COLLAPSE, cgroup, 0, key, sizeof(key));
	out->retry_in_ms = backoff_wait_ms(&a->failures, key, now);
	return 0;
}

/* A restriction put back: audited as a grant, though no request asked for it. */
static void restored(void *ctx, const struct action_record *r)
{
	struct actor *a = ctx;
	struct action_record rec = *r;

	audit_record(a->audit, &rec);
	if (a->on_record)
		a->on_record(a->on_record_ctx, &rec);
}

int actor_tick(struct actor *a)
{
	assert(a);

	bool all = !a->swept;

	a->swept = true;
	benefit_watch_tick(&a->benefit, &a->k, a->ctx.now_ms(), a->s.benefit_after_ms, a->audit);
	return a->be->expire ? a->be->expire(&a->ctx, all, restored, a) : 0;
}

int actor_release(struct actor *a)
{
	return a->be->expire ? a->be->expire(&a->ctx, true, restored, a) : 0;
}

void actor_sink(void *actor, const struct action_request *req)
{
	actor_submit(actor, req, NULL);
}

int actor_zone_view(void *actor, uint64_t demand, struct zone_view *out)
{
	struct actor *a = actor;
	struct zone_targets t;

	zone_plan(&a->s, demand, &t);
	out->target_bytes = t.nosplit;
	return zone_online_bytes(&a->ctx, a->k.zone_nosplit, &out->nosplit_bytes,
				 &out->block_bytes);
}
