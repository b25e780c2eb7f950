// SPDX-License-Identifier: GPL-2.0
/*
 * One tick: read BPF counters, follow what changed in the cgroup tree, read
 * memory.stat of the cgroups whose counters moved (and a round-robin slice
 * of the rest), update per-cgroup state. Cost grows with the cgroups that
 * changed, never with events.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "act/act.h"
#include "act/read/proc_tasks.h"
#include "common/cgroup_dir.h"
#include "control/commands.h"
#include "observe/task_rows.h"
#include "pipeline.h"
#include "tree_sync.h"
#include "common/log.h"
#include "account/memstat.h"
#include "common/rootfs.h"
#include "report/report_stage.h"
#include "account/cgroup_fold.h"
#include "account/pressure_read.h"
#include "pipeline.h"

#define RATE_WINDOW_MS 10000
/* memory.stat reads per tick besides the cgroups with THP events: a round
 * of every cgroup in MEMSTAT_ROUND ticks, at least MEMSTAT_SLICE_MIN and at
 * most MEMSTAT_SLICE_MAX a tick (a v1 memory.stat costs ~25 us: 64 of
 * them were most of a tick at 1,000 cgroups). */
#define MEMSTAT_ROUND	  60
#define MEMSTAT_SLICE_MIN 8
#define MEMSTAT_SLICE_MAX 64
#define MEMSTAT_TICK_MAX  128
#define MEMSTAT_TICK_US	  2000 /* and no more than this long: a loaded host reads slowly */
/* Ticks between choosing the tasks whose split stacks are sampled. */
#define STACK_WATCH_TICKS 5

struct tick_ctx {
	struct taod *d;
	uint64_t now;
	/* Removed cgroups whose late events made new BPF rows this tick. */
	uint64_t *late;
	size_t nlate, late_cap;
};

static void note_late(struct tick_ctx *t, uint64_t id)
{
	if (t->nlate == t->late_cap) {
		size_t cap = t->late_cap * 2 + 16;
		uint64_t *v = realloc(t->late, cap * sizeof(*v));

		if (!v)
			return; /* taken out at a later tick, or when its tombstone goes */
		t->late = v;
		t->late_cap = cap;
	}
	t->late[t->nlate++] = id;
}

/* Rows late events made for removed cgroups go back to the map too (after
 * the walk of it, which a delete would restart), what they held folded. */
static void reclaim_late_rows(struct tick_ctx *t)
{
	for (size_t i = 0; i < t->nlate; i++)
		tree_sync_reclaim(t->d, t->late[i], t->now);
	free(t->late);
}

static void on_bpf_counters(void *user, uint64_t id, const struct taod_cg_counters *c)
{
	struct tick_ctx *t = user;
	struct cgroup_entry *e = cgroup_table_set_counters(&t->d->cgroups, id, c, t->now);
	struct taod_cg_ancestry a;

	if (!e && cgroup_fold_follows(&t->d->cgroups, id))
		note_late(t, id);
	/* Once per id no walk found: a cgroup made and removed between two
	 * ticks folds into the ancestor BPF saw, not into nothing. */
	if (e && cgroup_entry_wants_ancestry(e))
		cgroup_entry_set_ancestry(e, thp_observe_cgroup_ancestry(t->d->obs, id, &a) ? NULL
											    : &a);
}

/* Counts BPF kept in cg_overflow, its counter map full: the cgroup's too. */
static void on_bpf_spilled(void *user, uint64_t id, const struct taod_cg_counters *c)
{
	struct tick_ctx *t = user;

	cgroup_table_add_spilled(&t->d->cgroups, id, c, t->now);
}

/* Per-size counters of a cgroup the table knows, or of a removed one
 * (what moved folds into its live ancestor). When a known one's move, its
 * memory.stat is read again: the anon bytes coverage per size is reckoned
 * against. */
static void on_bpf_sizes(void *user, uint64_t id, const struct taod_cg_sizes *s)
{
	struct tick_ctx *t = user;
	struct cgroup_entry *e = cgroup_table_find(&t->d->cgroups, id);

	if (!e) {
		cgroup_fold_late_sizes(&t->d->cgroups, id, s, t->now);
		return;
	}
	if (!memcmp(&e->sizes, s, sizeof(*s)))
		return;
	e->sizes = *s;
	e->memstat_due = true;
}

static void read_memstat(struct taod *d, struct cgroup_entry *e)
{
	const struct kernel_paths *k = &d->cfg->k;
	bool v2 = d->tree.version == 2;
	char text[16384];
	struct memstat m;
	int r;

	if (!e->path)
		return;
	if (cgroup_file_read(&d->tree, e->path, "memory.stat", text, sizeof(text)) <= 0) {
		cgroup_entry_set_memstat(e, NULL, false); /* v2 root has none */
		return;
	}
	r = memstat_parse(text, v2 ? k->memstat_v2_anon : k->memstat_v1_anon,
			  v2 ? k->memstat_v2_thp : k->memstat_v1_thp, &m);
	if (r == -EINVAL)
		log_debug("%s: memory.stat has a malformed value, ignored this tick", e->path);
	cgroup_entry_set_memstat(e, &m, r == 0);
}

/* v2: the cgroup's memory PSI (some avg10), a sign its tenant wants memory. */
static void read_memory_pressure(struct taod *d, struct cgroup_entry *e)
{
	struct pressure_reading r = {0};
	char text[512], err[160];

	e->psi_some = -1;
	if (d->tree.version != 2 ||
	    cgroup_file_read(&d->tree, e->path, "memory.pressure", text, sizeof(text)) <= 0)
		return;
	if (pressure_parse_psi(text, &r, err, sizeof(err)))
		log_debug("%s: memory.pressure: %s", e->path, err);
	else if (r.present & (1u << PIN_PSI_SOME))
		e->psi_some = r.value[PIN_PSI_SOME];
}

static size_t collect_tasks(void *user, struct task_row *rows, size_t max)
{
	return task_rows_collect(((struct taod *)user)->obs, rows, max);
}

static bool offender_alive(uint32_t tgid)
{
	return proc_task_live((pid_t)tgid);
}

/* A tenant with no anon memory: has it a task left? Unknown counts as yes. */
static bool tenant_has_tasks(void *user, const char *path)
{
	return cgroup_has_tasks(&((struct taod *)user)->tree, path) != 0;
}

/* Contiguity pressure from the kernel's counters; an odd file is told once. */
static void pressure_tick(struct taod *d, uint64_t now_ms)
{
	struct pressure_reading r;
	char err[sizeof(d->pressure_err)];

	if (pressure_read(&d->cfg->k, now_ms, &r, err, sizeof(err)) && strcmp(err, d->pressure_err))
		log_warn("contiguity pressure: %s; its inputs are left out", err);
	snprintf(d->pressure_err, sizeof(d->pressure_err), "%s", err);
	pressure_step(&d->pressure, &r, &d->cfg->pressure);
	if (d->actor)
		actor_set_need(d->actor, d->pressure.machine.state, d->decide.wanting);
}

/* decide: judge the cgroups whose window ended, hand requests to act. */
static void decide_step(struct taod *d, uint64_t now_ms)
{
	struct decide_need need = {
	    .pressure = d->pressure.machine.state,
	    .free_pmd_blocks = (uint64_t)d->pressure.value[PIN_FREE_PMD_BLOCKS],
	    .free_known = d->pressure.present & (1u << PIN_FREE_PMD_BLOCKS),
	    .wanting_fallbacks = d->cfg->pressure.wanting_fallbacks,
	    .wanting_psi = d->cfg->pressure.wanting_psi,
	    .reward_free_blocks = d->cfg->pressure.reward_free_blocks,
	    .want_hold_ms = d->cfg->pressure.hold_ms,
	    .short_ms = d->pressure.short_ms,
	};
	struct decide_io io = {
	    .policies = &d->cfg->policies,
	    .tao_kernel = d->kernel.kind == KERNEL_TAO,
	    .no_memcg_zones =
		d->kernel.kind == KERNEL_TAO && !kernel_has(&d->kernel, TAO_MEMCG_THP_ZONES),
	    .sink = d->action_sink,
	    .sink_ctx = d->action_sink_ctx,
	    .tasks = collect_tasks,
	    .tasks_ctx = d,
	    .task_alive = offender_alive,
	    .tenant_tasks = tenant_has_tasks,
	    .tenant_tasks_ctx = d,
	    /* Boot-sized zones move only by recommendation (taoctl zones). */
	    .zone_view =
		d->actor && kernel_has(&d->kernel, TAO_HOTPLUG_ZONES) ? actor_zone_view : NULL,
	    .zone_view_ctx = d->actor,
	    .zone_resize_every_ms = d->cfg->enforce.zone_resize_every_ms,
	    .need = &need,
	    .held_window_ms = d->cfg->history_retention_ms,
	};

	decide_tick(&d->decide, &d->cgroups, now_ms, &io);
}

/* Samples the longest policy window (or the rate window) needs. */
static size_t ring_need(const struct taod_config *cfg)
{
	uint64_t longest = RATE_WINDOW_MS, tick = cfg->tick_ms ? cfg->tick_ms : 1;
	size_t need;

	for (unsigned i = 0; i < cfg->policies.n; i++)
		if (cfg->policies.v[i].window_ms > longest)
			longest = cfg->policies.v[i].window_ms;
	need = (size_t)(longest / tick) + 2;
	return cfg->sample_keep && need > cfg->sample_keep ? cfg->sample_keep : need;
}

static void read_memstat_of(struct taod *d, struct cgroup_entry *e)
{
	read_memstat(d, e);
	if (e->path)
		read_memory_pressure(d, e);
	e->memstat_due = false;
	e->memstat_read = true;
}

/* Whether @e is due in @pass: 0, its counters moved since its last read;
 * 1, new with THP events; 2, new without any (a few a tick: 1,000 made at
 * once, all read in one tick, cost 2 ms a tick for ten ticks). */
static bool due_in_pass(const struct cgroup_entry *e, int pass)
{
	static const struct taod_cg_counters none;
	bool events;

	if (!e->memstat_due || e->memstat_read != !pass)
		return false;
	events = memcmp(&e->counters, &none, sizeof(none)) != 0;
	return pass == 0 || events == (pass == 1);
}

/*
 * memory.stat of the cgroups that are due, at most MEMSTAT_TICK_MAX a
 * tick and for MEMSTAT_TICK_US: first those whose counters moved, then new
 * ones with events, then MEMSTAT_SLICE_MIN new ones without, then a slice
 * of the others. Each pass starts at the round-robin cursor, and the
 * cursor moves on by what the slice read: on a loaded host whose first
 * passes spend the time, no cgroup is passed over unread (issue 29 part
 * 10: a new guaranteed tenant without THP events waited for ever in the
 * TAO kernel's guest).
 */
static void read_memstats(struct taod *d)
{
	struct cgroup_table *c = &d->cgroups;
	size_t slice = c->n / MEMSTAT_ROUND, budget = MEMSTAT_TICK_MAX, read = 0;
	uint64_t until = monotonic_us() + MEMSTAT_TICK_US;

	slice = slice < MEMSTAT_SLICE_MIN ? MEMSTAT_SLICE_MIN : slice;
	slice = slice > MEMSTAT_SLICE_MAX ? MEMSTAT_SLICE_MAX : slice;
	slice = slice > c->n ? c->n : slice;
	for (int pass = 0; pass < 3; pass++)
		for (size_t i = 0, idle = 0; i < c->n && budget; i++) {
			struct cgroup_entry *e = c->v[(d->memstat_cursor + i) % c->n];

			if (pass == 2 && idle == MEMSTAT_SLICE_MIN)
				break;
			if (due_in_pass(e, pass)) {
				read_memstat_of(d, e);
				idle += pass == 2;
				budget = monotonic_us() < until ? budget - 1 : 0;
			}
		}
	for (; read < slice && budget && monotonic_us() < until; read++, budget--)
		read_memstat_of(d, c->v[(d->memstat_cursor + read) % c->n]);
	if (c->n)
		d->memstat_cursor = (d->memstat_cursor + read) % c->n;
}

/* Class of a cgroup's tenant as decide last judged it; NULL before any. */
static const char *decided_class(void *ctx, const struct cgroup_entry *e)
{
	const struct taod *d = ctx;
	const struct cg_judge *j = decide_find(&d->decide, e->id);

	if (j)
		j = decide_find(&d->decide, j->tenant_id);
	return j ? cg_class_name(j->cls) : NULL;
}

/* benefit_source: tenant @id now, its coverage and THP fault fallbacks. */
static bool tenant_now(void *ctx, uint64_t id, struct benefit_tenant *out)
{
	struct taod *d = ctx;
	const struct cgroup_entry *e = cgroup_table_find(&d->cgroups, id);
	const struct cg_judge *j = decide_find(&d->decide, id);

	if (!e || !j)
		return false;
	*out = (struct benefit_tenant){
	    .id = id, .coverage = e->coverage_pct, .fallbacks = j->acc.fault_fallback};
	return true;
}

/* benefit_source: the good tenants wanting THPs, as decide counts them. */
static unsigned wanting_tenants(void *ctx, struct benefit_tenant *out, unsigned max)
{
	struct taod *d = ctx;
	uint64_t now = monotonic_ms();
	unsigned n = 0;

	for (size_t i = 0; i < d->decide.n && n < max; i++)
		if (decide_still_wanting(d->decide.v[i], now, d->cfg->pressure.hold_ms))
			n += tenant_now(d, d->decide.v[i]->id, &out[n]);
	return n;
}

void pipeline_benefit_source(struct taod *d)
{
	struct benefit_source src = {.wanting = wanting_tenants, .tenant = tenant_now, .ctx = d};

	if (d->actor)
		actor_set_benefit_source(d->actor, &src);
}

void pipeline_report_tick(struct taod *d, struct report_tick *t)
{
	*t = (struct report_tick){
	    .cfg = d->cfg,
	    .cgroups = &d->cgroups,
	    .ticks = d->ticks,
	    .class_of = decided_class,
	    .class_ctx = d,
	};
	taod_metrics_input(d, &t->metrics);
}

int pipeline_tick(struct taod *d)
{
	struct report_tick report;
	uint64_t start_us = monotonic_us();
	struct tick_ctx t = {.d = d, .now = start_us / 1000};
	int r, w = 0;

	/* Moved since (by an operator or a unit's Slice=): protect where it is now. */
	cgroup_tree_read_self(&d->tree);
	cgroup_table_begin_tick(&d->cgroups);
	/* Before anything inserts: rings made at the size the policies need,
	 * not at sample_keep first (a first walk of a busy host would size
	 * thousands of rings for an hour, and the heap keeps that memory). */
	cgroup_table_set_ring_cap(&d->cgroups, ring_need(d->cfg));
	thp_observe_flush(d->obs);
	/* Counters before the walk: a cgroup that had events before the walk
	 * is found by it unless it was removed. */
	r = log_errno(LOG_WARNING, thp_observe_read_cgroups(d->obs, on_bpf_counters, &t),
		      "reading BPF cgroup counters");
	reclaim_late_rows(&t);
	log_errno(LOG_WARNING, thp_observe_drain_overflow(d->obs, on_bpf_spilled, &t),
		  "draining BPF overflow counters");
	log_errno(LOG_WARNING, thp_observe_read_sizes(d->obs, on_bpf_sizes, &t),
		  "reading BPF per-size counters");
	w = tree_sync(d, t.now);
	read_memstats(d);
	cgroup_table_sample(&d->cgroups, t.now, RATE_WINDOW_MS);
	pressure_tick(d, t.now);
	decide_step(d, t.now);
	/* act: bounded actions whose time is up are put back. */
	if (d->actor)
		actor_tick(d->actor);
	/* The top offenders' split stacks are sampled; who they are moves slowly. */
	if (d->ticks % STACK_WATCH_TICKS == 0)
		log_errno(LOG_WARNING, task_rows_watch_top(d->obs),
			  "marking tasks for split stacks");
	thp_observe_stats(d->obs, d->bpf_stats);
	d->ticks++;
	pipeline_report_tick(d, &report);
	report.started_us = start_us;
	report_stage_tick(&d->report, &report);
	tree_sync_trim(d);
	d->last_tick_cost_us = monotonic_us() - start_us;
	/* The tick ran on with what it could read; the first error is reported. */
	return r ? r : w;
}
