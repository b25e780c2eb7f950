// SPDX-License-Identifier: GPL-2.0
/*
 * One decide pass: every cgroup gets a judge, cgroups are grouped into
 * tenants (tenants.c) against the policies in force (so a reload applies
 * at the next window), and every tenant whose window has elapsed is
 * judged: its class and strikes move, and the action asked for goes to
 * the sink. Per-task counters are read at most once per pass, and only
 * when a tenant judged misbehaving needs its offenders named.
 */
#include <assert.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "observe/task_rows.h"
#include "decide.h"
#include "judge_table.h"
#include "common/log.h"
#include "policy_match.h"
#include "observe/split_cause.h"

struct task_cache {
	const struct decide_io *io;
	const struct decide_state *s;
	const struct cgroup_table *t;
	struct task_row *rows;
	size_t n;
	bool loaded;
};

static void tasks_load(struct task_cache *tc)
{
	if (tc->loaded)
		return;
	tc->loaded = true;
	if (!tc->io->tasks)
		return;
	tc->rows = calloc(TAOD_MAX_TASKS, sizeof(*tc->rows));
	if (tc->rows)
		tc->n = tc->io->tasks(tc->io->tasks_ctx, tc->rows, TAOD_MAX_TASKS);
}

struct tenant_filter {
	const struct task_cache *tc;
	uint64_t tenant;
};

/* A task's cgroup may be a member, or removed and folded: its tenant's. */
static bool task_in_tenant(void *ctx, uint64_t cgroup_id)
{
	const struct tenant_filter *f = ctx;

	return tenant_of_cgroup(f->tc->s, f->tc->t, cgroup_id) == f->tenant;
}

static void name_offenders(struct cg_judge *j, const struct verdict *v, struct task_cache *tc)
{
	struct tenant_filter f = {.tc = tc, .tenant = j->id};

	if (j->cls == CLASS_GOOD && v->level == CLASS_GOOD) {
		j->noffenders = 0;
		j->top_cause = -1;
		j->top_cause_splits = j->task_splits = 0;
		return;
	}
	tasks_load(tc);
	j->noffenders =
	    offenders_pick(tc->rows, tc->n, task_in_tenant, &f, j->offenders, DECIDE_OFFENDERS);
	j->top_cause = offenders_top_cause(tc->rows, tc->n, task_in_tenant, &f,
					   &j->top_cause_splits, &j->task_splits);
}

/* The audit record says what broke the THPs: the syscall an owner can change. */
static void evidence_top_cause(const struct cg_judge *j, struct action_request *req)
{
	size_t n = strlen(req->evidence);

	if (j->top_cause < 0)
		return;
	snprintf(req->top_cause, sizeof(req->top_cause), "%s", split_cause_name(j->top_cause));
	snprintf(req->evidence + n, sizeof(req->evidence) - n,
		 "; top cause %s (%llu of %llu splits of its tasks)", req->top_cause,
		 (unsigned long long)j->top_cause_splits, (unsigned long long)j->task_splits);
}

/* Why the ladder did not climb, in the audit record. */
static void evidence_held(struct decide_state *s, struct cg_judge *j, struct action_request *req)
{
	size_t n = strlen(req->evidence);

	if (!j->held)
		return;
	j->held = false;
	s->held++;
	snprintf(req->evidence + n, sizeof(req->evidence) - n,
		 "; %s held at warn: no contiguity pressure, no tenant wanting (act_when = need)",
		 action_kind_name(j->held_kind));
}

/*
 * Short of its guarantee by a THP or more as it is now. The window's mean
 * alone would call a tenant wanting while it starts (its first samples of
 * a few pages at 0%) or a hair under a 100% promise: no whole THP would
 * help it, so nobody lacks contiguity and nothing may be shattered for it.
 */
static bool short_of_guarantee(const struct verdict *v, const struct cgroup_entry *e,
			       const struct policy *p)
{
	double owed;

	if (!v->below_guarantee)
		return false;
	if (!e->mem_ok)
		return v->reward_bytes >= DECIDE_THP_BYTES;
	owed = p->coverage_guarantee / 100.0 * (double)e->mem.anon_bytes - (double)e->mem.thp_bytes;
	return owed >= (double)DECIDE_THP_BYTES;
}

/*
 * Memory that could have been huge: THPs held, or THP faults or collapses
 * tried in the window. A tenant that turned THPs off for itself
 * (PR_SET_THP_DISABLE, MADV_NOHUGEPAGE) tries none: at 0% of a promise it
 * lacks nothing contiguity could give, so nothing is shattered for it.
 */
static bool thp_eligible(const struct verdict *v)
{
	return v->thp_bytes || v->allocs || v->fallbacks;
}

/* The machine was short of blocks within @v's window: only then are a
 * tenant's own fallbacks or stalls for want of them (else its own limit's). */
static bool machine_was_short(const struct verdict *v, const struct decide_need *n, uint64_t now_ms)
{
	return !n || (n->short_ms && now_ms - n->short_ms <= v->span_ms);
}

/* Wanting: short of its guarantee with memory that could have been huge,
 * its THP faults fell back for want of blocks, or (v2, where asked for)
 * its memory.pressure is past [pressure] wanting_psi. */
static bool wanting(const struct verdict *v, const struct cgroup_entry *e, const struct policy *p,
		    const struct decide_io *io, uint64_t now_ms)
{
	const struct decide_need *n = io->need;
	uint64_t min = n && n->wanting_fallbacks ? n->wanting_fallbacks : 1;

	if (n && n->wanting_psi && v->psi_some >= (double)n->wanting_psi &&
	    machine_was_short(v, n, now_ms))
		return true;
	return (short_of_guarantee(v, e, p) && thp_eligible(v)) ||
	       (v->fallbacks >= min && machine_was_short(v, n, now_ms));
}

static void history_push(struct cg_judge *j, const struct verdict *v, uint64_t now_ms)
{
	struct judgement *h = &j->hist[j->hist_head];

	h->t_ms = now_ms;
	h->level = v->level;
	h->cls = j->cls;
	h->score = v->score;
	h->judged = v->judged;
	h->strikes = j->strikes;
	j->hist_head = (j->hist_head + 1) % DECIDE_HISTORY;
	if (j->hist_len < DECIDE_HISTORY)
		j->hist_len++;
}

static uint64_t request_bytes(enum action_kind kind, const struct verdict *v)
{
	/* Shatter asks for 0, "all there is": every THP the offender left
	 * partly mapped (the waste), within act's byte budget. */
	if (kind == ACTION_COLLAPSE || kind == ACTION_GRANT)
		return v->reward_bytes;
	return 0;
}

/*
 * The first offender still alive: a dead one's THPs are gone or stranded
 * in a process sharing its memory. 0 when none lives: the action walks
 * the tenant's live tasks, those holding the THPs among them.
 */
static pid_t live_offender(const struct cg_judge *j, const struct decide_io *io)
{
	for (unsigned i = 0; i < j->noffenders; i++)
		if (!io->task_alive || io->task_alive(j->offenders[i].pid))
			return (pid_t)j->offenders[i].pid;
	return 0;
}

static void emit(struct decide_state *s, struct cg_judge *j, enum action_kind kind,
		 const struct policy *p, const struct decide_io *io, uint64_t now_ms)
{
	struct action_request req = {.kind = kind, .cgroup_id = j->id, .dry_run = p->dry_run};
	char ev[200];

	req.cgroup = j->path;
	snprintf(req.policy, sizeof(req.policy), "%s", p->name);
	req.sizes = p->sizes;
	if (action_kind_row(kind)->task)
		req.pid = live_offender(j, io);
	req.bytes = request_bytes(kind, &j->last);
	verdict_evidence(&j->last, p, ev, sizeof(ev));
	snprintf(req.evidence, sizeof(req.evidence), "%s; %s, strike %u", ev, cg_class_name(j->cls),
		 j->strikes);
	evidence_top_cause(j, &req);
	evidence_held(s, j, &req);
	j->acted = true;
	j->last_action = kind;
	j->last_action_ms = now_ms;
	j->shatters_asked += kind == ACTION_SHATTER;
	s->requests++;
	if (io->sink)
		io->sink(io->sink_ctx, &req);
}

/*
 * No anon memory and no task: a tenant that shut down. What its exit
 * broke was freed with it; judging it would class it on its teardown
 * (issue 26 item 3). Memory read or not, a tenant with tasks is judged.
 */
static bool tenant_empty(const struct cg_judge *j, const struct cgroup_entry *e,
			 const struct decide_io *io)
{
	if (!e->mem_ok || e->mem.anon_bytes || !io->tenant_tasks)
		return false;
	return !io->tenant_tasks(io->tenant_tasks_ctx, j->path);
}

static void judge(struct decide_state *s, struct cg_judge *j, const struct cgroup_entry *e,
		  const struct policy *p, const struct decide_io *io, struct task_cache *tc,
		  uint64_t now_ms)
{
	struct cg_window w;
	enum action_kind kind;
	bool moved;

	if (cgroup_entry_window_from(e, j->window_from_ms, &w))
		return;
	j->window_from_ms = w.end_ms;
	verdict_judge(j, &w, e, p, now_ms, &j->last);
	if (tenant_empty(j, e, io))
		verdict_empty(j, &j->last);
	j->last.psi_some = e->psi_some;
	j->last.wanting = wanting(&j->last, e, p, io, now_ms);
	if (j->last.wanting)
		j->wanted_ms = now_ms;
	j->has_verdict = true;
	moved = hysteresis_window(j, &j->last, p, now_ms);
	name_offenders(j, &j->last, tc);
	if (moved)
		log_struct(
		    LOG_NOTICE,
		    &(struct log_fields){.id = LOG_MSG_CLASS, .cgroup = j->path, .policy = p->name},
		    "cgroup %s is now %s (policy %s)", j->path, cg_class_name(j->cls), p->name);
	s->judgements++;
	/* An empty tenant has nothing to act on: no rung, no reward. */
	if (!j->last.empty && ladder_step(j, &j->last, p, moved, io, now_ms, &kind)) {
		history_push(j, &j->last, now_ms);
		emit(s, j, kind, p, io, now_ms);
		return;
	}
	history_push(j, &j->last, now_ms);
}

/*
 * A cgroup seen for the first time is judged after one full window from
 * its oldest sample: for one born since the last tick, the zero sample of
 * its birth (cgroup_state.c), so its first window holds all it did.
 */
static struct cg_judge *judge_new(struct decide_state *s, const struct cgroup_entry *e,
				  const struct policy *p, uint64_t now_ms)
{
	struct cg_judge *j = judge_table_add(s, e->id);
	uint64_t oldest = cgroup_entry_oldest_ms(e);

	if (!j)
		return NULL;
	j->class_since_ms = now_ms;
	j->window_from_ms = oldest && oldest + p->window_ms > now_ms ? oldest : now_ms;
	j->next_judge_ms = j->window_from_ms + p->window_ms;
	judge_set_path(j, e->path);
	snprintf(j->policy, sizeof(j->policy), "%s", p->name);
	return j;
}

/* Keeps the cadence of whole windows; a late tick does not shift it. */
static uint64_t next_judgement(uint64_t prev, uint64_t window_ms, uint64_t now_ms)
{
	uint64_t next = prev + window_ms;

	return next > now_ms ? next : now_ms + window_ms;
}

/* Every cgroup with a path has a judge, made at its first sight. */
static void ensure_judge(struct decide_state *s, const struct cgroup_entry *e, uint64_t now_ms,
			 const struct decide_io *io)
{
	struct cg_judge *j = decide_find(s, e->id);

	if (!j)
		j = judge_new(s, e, policy_lookup(io->policies, e->path, NULL), now_ms);
	if (j && !judge_set_path(j, e->path))
		j->seen_gen = s->gen;
}

/* Tenant roots are judged when their window is due; members never. */
static void visit(struct decide_state *s, struct cg_judge *j, const struct cgroup_entry *e,
		  uint64_t now_ms, const struct decide_io *io, struct task_cache *tc)
{
	const struct policy *p;

	if (!j || j->root != j || now_ms < j->next_judge_ms)
		return;
	p = j->pol ? j->pol : &io->policies->v[0];
	snprintf(j->policy, sizeof(j->policy), "%s", p->name);
	judge(s, j, e, p, io, tc, now_ms);
	j->next_judge_ms = next_judgement(j->next_judge_ms, p->window_ms, now_ms);
}

/* Judges for new cgroups, new paths, none for gone ones: only when the
 * tree changed (a path set, moved or dropped moves tree_gen). */
static void make_judges(struct decide_state *s, const struct cgroup_table *t, uint64_t now_ms,
			const struct decide_io *io)
{
	if (s->judges_made && t->tree_gen == s->judges_tree_gen)
		return;
	s->gen++;
	for (size_t i = 0; i < t->n; i++)
		if (t->v[i]->path)
			ensure_judge(s, t->v[i], now_ms, io);
	judge_table_sweep(s);
	s->judges_tree_gen = t->tree_gen;
	s->judges_made = true;
}

/* A tenant whose faults fell back a window ago, then got a collapse,
 * still lacks what an abuser strands; an abuser's own want is no reason
 * to act on it. */
bool decide_still_wanting(const struct cg_judge *j, uint64_t now_ms, uint64_t hold_ms)
{
	if (j->root != j || !j->has_verdict || j->cls != CLASS_GOOD)
		return false;
	return j->last.wanting || (j->wanted_ms && now_ms - j->wanted_ms < hold_ms);
}

static unsigned count_wanting(const struct decide_state *s, uint64_t now_ms, uint64_t hold_ms)
{
	unsigned n = 0;

	for (size_t i = 0; i < s->n; i++)
		n += decide_still_wanting(s->v[i], now_ms, hold_ms);
	return n;
}

void decide_tick(struct decide_state *s, const struct cgroup_table *t, uint64_t now_ms,
		 const struct decide_io *in)
{
	assert(s && t && in && in->policies && in->sink);

	struct decide_io local = *in, *io = &local;
	struct task_cache tc = {.io = io, .s = s, .t = t};
	struct decide_need need;

	s->wanting = count_wanting(s, now_ms, in->need ? in->need->want_hold_ms : 0);
	if (in->need) {
		need = *in->need;
		need.wanting = s->wanting;
		local.need = &need;
	}
	make_judges(s, t, now_ms, io);
	if (judges_align(s, t))
		return; /* out of memory: judged next tick */
	tenants_update(s, t, io->policies);
	for (size_t i = 0; i < t->n; i++)
		if (t->v[i]->path)
			visit(s, s->of_entry[i], t->v[i], now_ms, io, &tc);
	free(tc.rows);
	if (io->tao_kernel)
		zone_demand_tick(&s->zones, t, now_ms, io);
}
