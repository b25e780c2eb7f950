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
 *
 * A kind whose row says off_loop (shatter, collapse: they read the
 * tenant's smaps and page tables, which its mmap lock guards) is carried
 * out in an offload child: the loop stays free however long the tenant
 * holds that lock, and the child is killed when its time is spent. One
 * such action runs at a time; the rest wait in a queue and pass the gate
 * when their turn comes, so budgets are charged in order.
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
#include "common/offload.h"
#include "act/act_time.h"
#include "act/debugfs_mount.h"
#include "action_queue.h"
#include "common/rootfs.h"

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
	sd_event *event;	      /* NULL: every kind carried out here, in the caller */
	struct action_job *job;	      /* the action under way off the loop */
	struct action_queue queue;    /* requests waiting for it */
};

/* An action whose backend call runs off the loop, until it ends. */
struct action_job {
	struct actor *a;
	struct action_record rec; /* rec.req.cgroup is @cgroup */
	char *cgroup;
	act_op_fn op;
	uint64_t budget, start_ms;
	action_done_fn done;
	void *ctx;
};

/* What the child sends back up its pipe. */
struct job_result {
	struct act_outcome o;
	struct action_cost cost;
	uint64_t compact_last_ms; /* a compaction it ran starts the interval */
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
	struct queued_action q;

	if (!a)
		return;
	while (action_queue_pop(&a->queue, &q)) /* recorded by actor_drop_pending() */
		free(q.cgroup);
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

/* The bytes @req may move: what it asks, within what the minute has left. */
static uint64_t byte_budget(struct actor *a, const struct action_request *req)
{
	uint64_t left = rate_limit_bytes_left(&a->rl);

	return req->bytes && req->bytes < left ? req->bytes : left;
}

/* After the backend: charge the budgets, and back off on failure. */
static void charge(struct actor *a, const struct action_request *req, struct act_outcome *o)
{
	char key[320];
	size_t n;

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

/* Past the gate, here in the caller: act, then charge. */
static void carry_out(struct actor *a, const struct action_request *req, struct act_outcome *o,
		      struct action_cost *cost)
{
	act_op_fn op = backend_op(a, req->kind, NULL);

	if (req->kind == ACTION_WARN) {
		act_outcome_set(o, RESULT_DONE, 0, "warned");
		return;
	}
	if (!op) {
		act_outcome_set(o, RESULT_UNSUPPORTED, EINVAL, "unknown action kind %d", req->kind);
		return;
	}
	costed(a, op, req, byte_budget(a, req), o, cost);
	charge(a, req, o);
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

/* true: @req may be carried out; false: @o says why not. */
static bool gate(struct actor *a, const struct action_request *req, struct act_outcome *o)
{
	if (!machine_wide(req) &&
	    (vanished(a, req, o) || protected(a, req, o) || shut_down(a, req, o)))
		return false;
	if (unsupported(a, req, o) || dry_run(a, req, o) || no_room(a, req, o))
		return false;
	return req->kind == ACTION_WARN || !(rate_limited(a, req, o) || backing_off(a, req, o));
}

/* The record's end: its result, the audit, the follow-ups. */
static void record_end(struct actor *a, struct action_record *rec, const struct act_outcome *o,
		       uint64_t start)
{
	const struct action_request *req = &rec->req;

	rec->took_ms = a->ctx.now_ms() > start ? a->ctx.now_ms() - start : 0;
	rec->result = o->result;
	rec->bytes = o->bytes;
	rec->err = o->err;
	snprintf(rec->detail, sizeof(rec->detail), "%s", o->detail);
	rec->shatter = o->shatter;
	if (rec->shatter.split_counted &&
	    (rec->cost.kernel_present & (1u << COST_pgmigrate_success)))
		rec->shatter.pages_migrated = rec->cost.kernel[COST_pgmigrate_success];
	audit_record(a->audit, rec);
	benefit_watch_action(&a->benefit, rec, a->ctx.now_ms(), a->s.benefit_after_ms);
	/* Backing off keeps what started the back-off: that says why. */
	if (req->kind == ACTION_COLLAPSE && o->result != RESULT_BACKING_OFF)
		reward_table_put(&a->rewards, req->cgroup, o, a->ctx.now_ms());
	if (a->on_record)
		a->on_record(a->on_record_ctx, rec);
}

static void record_start(struct action_record *rec, const struct action_request *req)
{
	memset(rec, 0, sizeof(*rec));
	rec->req = *req;
	if (!rec->req.cgroup)
		rec->req.cgroup = ""; /* machine-wide */
}

enum action_result actor_submit(struct actor *a, const struct action_request *req,
				struct action_record *rec)
{
	assert(a);
	assert(req);
	/* decide and control name kinds from the table */
	assert((unsigned)req->kind < ACTION_KIND_MAX);

	struct action_record local;
	struct act_outcome o = {0};
	uint64_t start = a->ctx.now_ms();

	if (!rec)
		rec = &local;
	record_start(rec, req);
	if (gate(a, &rec->req, &o))
		carry_out(a, &rec->req, &o, &rec->cost);
	record_end(a, rec, &o, start);
	return o.result;
}

/* In the child: the backend's call, costed, sent up whole. */
static void job_work(void *arg, char **out, size_t *len)
{
	struct action_job *j = arg;
	struct job_result *r = calloc(1, sizeof(*r));

	*out = (char *)r;
	*len = r ? sizeof(*r) : 0;
	if (!r)
		return;
	costed(j->a, j->op, &j->rec.req, j->budget, &r->o, &r->cost);
	r->compact_last_ms = j->a->compact.last_ms;
}

static void job_end(struct actor *a, struct action_job *j, const struct act_outcome *o)
{
	record_end(a, &j->rec, o, j->start_ms);
	if (j->done)
		j->done(j->ctx, &j->rec);
	free(j->cgroup);
	free(j);
}

static void next_job(struct actor *a);

/* On the loop: what the child did, or why it did not say. */
static void job_ended(void *ctx, const char *out, size_t len, const struct offload_end *end)
{
	struct action_job *j = ctx;
	struct actor *a = j->a;
	struct act_outcome o = {0};
	struct job_result r;
	char why[224];

	if (out && len == sizeof(r)) {
		memcpy(&r, out, sizeof(r));
		o = r.o;
		j->rec.cost = r.cost;
		if (r.compact_last_ms > a->compact.last_ms)
			a->compact.last_ms = r.compact_last_ms;
	} else {
		offload_end_text(end, why, sizeof(why));
		act_outcome_set(&o, RESULT_FAILED, ETIME, "%s", why);
	}
	charge(a, &j->rec.req, &o);
	a->job = NULL;
	job_end(a, j, &o);
	if (end->how != OFFLOAD_STOPPED)
		next_job(a);
}

/* debugfs is mounted here, in taod itself, so that taod unmounts it at exit. */
static void mount_debugfs(const struct actor *a)
{
	char path[PATH_MAX];

	if (!rootfs_path(path, sizeof(path), a->k.split_huge_pages))
		debugfs_mount_for_split(&a->k, path);
}

/* Gates @q (taking its copy of the path) and, past the gate, starts its child. */
static void start_job(struct actor *a, struct queued_action *q)
{
	struct action_job *j = calloc(1, sizeof(*j));
	struct act_outcome o = {0};
	int r;

	if (!j) {
		free(q->cgroup);
		return;
	}
	*j = (struct action_job){.a = a,
				 .cgroup = q->cgroup,
				 .done = q->done,
				 .ctx = q->ctx,
				 .start_ms = a->ctx.now_ms()};
	record_start(&j->rec, &q->req);
	if (gate(a, &j->rec.req, &o)) {
		if (q->req.kind == ACTION_SHATTER && a->be->shatter_needs_debugfs)
			mount_debugfs(a);
		j->op = backend_op(a, q->req.kind, NULL);
		j->budget = byte_budget(a, &j->rec.req);
		r = offload_start(a->event, ACT_TIME_LIMIT_MS, job_work, j, job_ended, j);
		if (!r) {
			a->job = j;
			return;
		}
		act_outcome_set(&o, RESULT_RATE_LIMITED, -r,
				"no child to carry it out off the loop: %s", strerror(-r));
	}
	job_end(a, j, &o);
}

static void next_job(struct actor *a)
{
	struct queued_action q;

	while (!a->job && action_queue_pop(&a->queue, &q))
		start_job(a, &q);
}

/* Recorded at once, never carried out: @result and why. */
static void refuse(struct actor *a, const struct action_request *req, action_done_fn done,
		   void *ctx, enum action_result result, const char *why)
{
	struct action_record rec;
	struct act_outcome o = {0};

	record_start(&rec, req);
	act_outcome_set(&o, result, 0, "%s", why);
	record_end(a, &rec, &o, a->ctx.now_ms());
	if (done)
		done(ctx, &rec);
}

static bool goes_off_loop(const struct actor *a, const struct action_request *req)
{
	const struct action_kind_row *row = action_kind_row(req->kind);

	return a->event && row && row->off_loop;
}

static bool under_way(const struct actor *a, const struct action_request *req)
{
	const char *cgroup = req->cgroup ? req->cgroup : "";

	return (a->job && a->job->rec.req.kind == req->kind && !strcmp(a->job->cgroup, cgroup)) ||
	       action_queue_has(&a->queue, req->kind, cgroup);
}

void actor_submit_then(struct actor *a, const struct action_request *req, action_done_fn done,
		       void *ctx)
{
	assert(a);
	assert(req);
	assert((unsigned)req->kind < ACTION_KIND_MAX);

	struct action_record rec;
	char why[96];

	if (!goes_off_loop(a, req)) {
		actor_submit(a, req, &rec);
		if (done)
			done(ctx, &rec);
		return;
	}
	if (under_way(a, req)) {
		snprintf(why, sizeof(why), "the same %s is already under way or waiting",
			 action_kind_name(req->kind));
		refuse(a, req, done, ctx, RESULT_BACKING_OFF, why);
		return;
	}
	if (action_queue_push(&a->queue, req, done, ctx)) {
		snprintf(why, sizeof(why), "%d actions already wait for the one under way",
			 ACTION_QUEUE_MAX);
		refuse(a, req, done, ctx, RESULT_RATE_LIMITED, why);
		return;
	}
	next_job(a);
}

void actor_set_event(struct actor *a, sd_event *e)
{
	a->event = e;
}

unsigned actor_pending(const struct actor *a)
{
	return (a->job != NULL) + a->queue.n;
}

void actor_drop_pending(struct actor *a)
{
	struct queued_action q;

	while (action_queue_pop(&a->queue, &q)) {
		refuse(a, &q.req, q.done, q.ctx, RESULT_FAILED,
		       "taod exited before carrying it out");
		free(q.cgroup);
	}
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
	debugfs_unmount_ours();
	return a->be->expire ? a->be->expire(&a->ctx, true, restored, a) : 0;
}

void actor_sink(void *actor, const struct action_request *req)
{
	actor_submit_then(actor, req, NULL, NULL);
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
