// SPDX-License-Identifier: GPL-2.0
/*
 * The classifier driven by hand-made counter series: one sample per tick,
 * one tick per window, so each step below is exactly one judged window.
 * Most tests use a horizon far below the window, so each window is judged
 * on its own; the horizon tests give it back its length.
 */
#include <criterion/criterion.h>
#include <string.h>

#include "account/size_held.h"
#include "decide_fixture.h"

#define ID     42
#define OTHER  43
#define WINDOW 1000
#define MIB    (1ULL << 20)

static struct cgroup_table table;
static struct decide_state st;
static struct policy_set policies;
static struct policy *pol;
static struct decide_fixture fx;
static uint64_t now, allocs, splits, collapses;
static bool tao;
static task_alive_fn alive;	       /* NULL: every task lives */
static bool no_memcg_zones;	       /* TAO with boot-sized zones only */
static struct taod_cg_sizes sizes_now; /* the cgroup's per-size counts, cumulative */
static struct decide_need *need;       /* NULL: no need gating */
/* The machine is short of contiguity at every tick (need->short_ms): a
 * tenant's fallbacks then are for want of blocks, not its own limit's. */
static bool machine_short;
static uint64_t other_fallbacks; /* > 0: a second tenant, /t/other, whose faults fell back */
static uint64_t other_step;	 /* ... this many more every window */
static bool tasks_left;		 /* the tenant has a task (tenant_tasks) */

static bool tenant_tasks(void *ctx, const char *path)
{
	(void)ctx;
	(void)path;
	return tasks_left;
}

static void setup(void)
{
	cgroup_table_init(&table, 64);
	decide_init(&st);
	memset(&policies, 0, sizeof(policies));
	policy_builtin_default(&policies.v[0]);
	policies.n = 1;
	pol = &policies.v[0];
	pol->window_ms = WINDOW;
	pol->min_allocs = 10;
	pol->cooldown_ms = 0;
	pol->max_split_ratio = 0.25;
	pol->horizon_ms = 1; /* only the window judged counts */
	pol->act_on_misuser = false;
	memset(&fx, 0, sizeof(fx));
	fx.nrows = 2;
	now = 100000;
	machine_short = false;
	allocs = splits = collapses = 0;
	tao = false;
	no_memcg_zones = false;
	memset(&sizes_now, 0, sizeof(sizes_now));
	need = NULL;
	other_fallbacks = 0;
	other_step = 10;
	alive = NULL;
	tasks_left = true;
	fx.rows[0].tgid = 777; /* most splits first, as task_rows_collect sorts */
	fx.rows[0].c.cgroup_id = ID;
	fx.rows[0].c.pmd_split = 90;
	fx.rows[0].c.thp_fault_alloc = 100;
	strcpy(fx.rows[0].c.comm, "abuser");
	fx.rows[1].tgid = 888;
	fx.rows[1].c.cgroup_id = OTHER;
	fx.rows[1].c.pmd_split = 5;
}

static void teardown(void)
{
	cgroup_table_free(&table);
	decide_free(&st);
}

TestSuite(decide, .init = setup, .fini = teardown);

/* One tick (= one window) in which the cgroup allocates and splits. */
static void tick_mem(uint64_t a, uint64_t s, uint64_t anon, uint64_t thp)
{
	struct taod_cg_counters c = {0};
	struct memstat m = {.anon_bytes = anon, .thp_bytes = thp, .has_anon = true};
	struct decide_io io = {.policies = &policies,
			       .tao_kernel = tao,
			       .no_memcg_zones = no_memcg_zones,
			       .sink = decide_fixture_sink,
			       .sink_ctx = &fx,
			       .tasks = decide_fixture_tasks,
			       .tasks_ctx = &fx,
			       .task_alive = alive,
			       .tenant_tasks = tenant_tasks,
			       .need = need};
	struct taod_cg_counters o = {.thp_fault_fallback = other_fallbacks};
	struct cgroup_entry *e;

	now += WINDOW;
	allocs += a;
	splits += s;
	c.thp_fault_alloc = allocs;
	c.thp_collapse_alloc = collapses;
	c.pmd_split = splits;
	c.pmd_split_pages = splits * (DECIDE_THP_BYTES / 4096);
	cgroup_table_begin_tick(&table);
	e = cgroup_table_touch(&table, ID, "/t/cg", 0, now);
	cgroup_table_set_counters(&table, ID, &c, now);
	cgroup_entry_set_memstat(e, &m, true);
	e->sizes = sizes_now;
	if (other_fallbacks) {
		cgroup_table_touch(&table, OTHER, "/t/other", 0, now);
		cgroup_table_set_counters(&table, OTHER, &o, now);
		other_fallbacks += other_step; /* every window, more fall back */
	}
	cgroup_table_sample(&table, now, WINDOW);
	if (need && machine_short)
		need->short_ms = now;
	decide_tick(&st, &table, now, &io);
}

static void tick(uint64_t a, uint64_t s)
{
	tick_mem(a, s, 100 * MIB, 100 * MIB);
}

#define GOOD   tick(100, 0)
#define MISUSE tick(100, 40)  /* ratio 0.4: score 1.6 */
#define ABUSE  tick(100, 100) /* ratio 1.0: score 4 */

static enum cg_class cls(void)
{
	struct cg_judge *j = decide_find(&st, ID);

	cr_assert_not_null(j);
	return j->cls;
}

static void assert_req(unsigned i, enum action_kind kind)
{
	cr_assert(i < fx.nreqs, "only %u requests", fx.nreqs);
	cr_assert_eq(fx.reqs[i].kind, kind, "request %u is %s, not %s", i,
		     action_kind_name(fx.reqs[i].kind), action_kind_name(kind));
	cr_assert_eq(fx.reqs[i].cgroup_id, ID);
	cr_assert_str_eq(fx.reqs[i].cgroup, "/t/cg");
}

Test(decide, one_noisy_window_does_not_flip_and_ladder_is_walked)
{
	tick(0, 0); /* first sample; the first judgement needs a full window */
	cr_assert_eq(decide_find(&st, ID)->hist_len, 0);
	GOOD;
	ABUSE; /* one noisy window */
	cr_assert_eq(cls(), CLASS_GOOD);
	GOOD;
	ABUSE;
	cr_assert_eq(cls(), CLASS_GOOD);
	cr_assert_eq(fx.nreqs, 0);
	ABUSE; /* second in a row (escalate_after = 2): abuser, strike 1 */
	cr_assert_eq(cls(), CLASS_ABUSER);
	assert_req(0, ACTION_WARN);
	cr_assert_eq(fx.reqs[0].pid, 777); /* the offending task of this cgroup */
	cr_assert(
	    strstr(fx.reqs[0].evidence, "waste 1.00 (max 0.25): 100.0 THPs broken of 100.0 given"),
	    "%s", fx.reqs[0].evidence);
	cr_assert(strstr(fx.reqs[0].evidence, "+100 allocs, +100 splits"), "%s",
		  fx.reqs[0].evidence);
	ABUSE; /* strike 2: still warn */
	assert_req(1, ACTION_WARN);
	ABUSE; /* strike 3 */
	assert_req(2, ACTION_RESTRICT);
	cr_assert_eq(fx.reqs[2].pid, 0);
	ABUSE;
	assert_req(3, ACTION_RESTRICT);
	ABUSE; /* strike 5 */
	assert_req(4, ACTION_SHATTER);
	cr_assert_eq(fx.reqs[4].pid, 777);
	cr_assert_eq(fx.reqs[4].bytes, 0); /* all there is, within act's byte budget */
	GOOD;
	GOOD;
	cr_assert_eq(cls(), CLASS_ABUSER); /* relax_after = 3 */
	cr_assert_eq(fx.nreqs, 5);
	GOOD;
	cr_assert_eq(cls(), CLASS_GOOD);
	assert_req(5, ACTION_GRANT); /* restricted zones given back */
	cr_assert_eq(decide_find(&st, ID)->strikes, 0);
	cr_assert_eq(fx.nreqs, 6);
}

/* Without memory.thp_zones the restrict rung cannot work: its strikes
 * shatter (the next rung), nothing is granted back, and rewards collapse. */
Test(decide, restrict_rung_gives_way_on_a_kernel_without_memcg_zones)
{
	enum action_kind kind;
	uint64_t due;

	tao = no_memcg_zones = true;
	tick(0, 0);
	GOOD;
	ABUSE;
	ABUSE; /* strike 1, 2: warn */
	ABUSE;
	cr_assert(decide_next_action(decide_find(&st, ID), pol, true, true, &kind, &due));
	cr_assert_eq(kind, ACTION_SHATTER, "%s", action_kind_name(kind));
	ABUSE; /* strike 3: restrict's rung */
	assert_req(0, ACTION_WARN);
	assert_req(1, ACTION_WARN);
	assert_req(2, ACTION_SHATTER);
	cr_assert_eq(fx.reqs[2].pid, 777);
	ABUSE;
	assert_req(3, ACTION_SHATTER);
	/* What TaodAbuserReturns counts: the shatters asked, not the warns. */
	cr_assert_eq(decide_find(&st, ID)->shatters_asked, 2);
	GOOD;
	GOOD;
	GOOD;
	cr_assert_eq(cls(), CLASS_GOOD);
	cr_assert_eq(fx.nreqs, 4); /* no GRANT: nothing was restricted */
}

Test(decide, a_good_window_amid_abuse_keeps_strikes_but_adds_none)
{
	tick(0, 0);
	ABUSE;
	ABUSE; /* abuser, strike 1 */
	GOOD;  /* no strike, no action, class stays */
	cr_assert_eq(cls(), CLASS_ABUSER);
	cr_assert_eq(decide_find(&st, ID)->strikes, 1);
	ABUSE; /* strike 2 */
	ABUSE; /* strike 3 */
	cr_assert_eq(fx.nreqs, 3);
	assert_req(2, ACTION_RESTRICT);
}

Test(decide, cooldown_holds_back_strikes)
{
	enum action_kind kind;
	uint64_t due;

	pol->cooldown_ms = 2500;
	tick(0, 0);
	ABUSE;
	ABUSE; /* strike 1: warn at t, cooldown until t + 2500 */
	cr_assert_eq(fx.nreqs, 1);
	cr_assert(decide_next_action(decide_find(&st, ID), pol, false, false, &kind, &due));
	cr_assert_eq(kind, ACTION_WARN);
	cr_assert_eq(due, now + 3000); /* first judgement after the cooldown */
	ABUSE;
	ABUSE;
	cr_assert_eq(fx.nreqs, 1);
	cr_assert_eq(decide_find(&st, ID)->strikes, 1);
	ABUSE; /* t + 3000: strike 2 */
	cr_assert_eq(fx.nreqs, 2);
	assert_req(1, ACTION_WARN);
	cr_assert_eq(decide_find(&st, ID)->strikes, 2);
	cr_assert(decide_next_action(decide_find(&st, ID), pol, false, false, &kind, &due));
	cr_assert_eq(kind, ACTION_RESTRICT);
}

Test(decide, misuser_is_listed_but_not_acted_on_under_act_on_abuser)
{
	tick(0, 0);
	MISUSE;
	cr_assert_eq(cls(), CLASS_GOOD);
	MISUSE;
	cr_assert_eq(cls(), CLASS_MISUSER);
	MISUSE;
	MISUSE;
	cr_assert_eq(fx.nreqs, 0);
	cr_assert_eq(decide_find(&st, ID)->noffenders, 1);
	cr_assert_eq(decide_find(&st, ID)->offenders[0].pid, 777);
}

Test(decide, the_request_and_the_judge_carry_the_tenants_top_cause)
{
	/* Two tasks of the tenant: the top offender munmaps, the other's
	 * MADV_DONTNEED splits are more over the tenant. */
	fx.rows[0].c.pmd_split_by_cause[TAOD_CAUSE_MUNMAP] = 50;
	fx.rows[0].c.pmd_split_by_cause[TAOD_CAUSE_MADV_DONTNEED] = 40;
	fx.rows[1].c.cgroup_id = ID;
	fx.rows[1].c.pmd_split_by_cause[TAOD_CAUSE_MADV_DONTNEED] = 5;
	fx.nrows = 3;
	fx.rows[2].tgid = 999; /* another tenant's: not counted */
	fx.rows[2].c.cgroup_id = OTHER;
	fx.rows[2].c.pmd_split = 60;
	fx.rows[2].c.pmd_split_by_cause[TAOD_CAUSE_MADV_DONTNEED] = 60;
	tick(0, 0);
	cr_assert_eq(decide_find(&st, ID)->top_cause, -1, "not named while good");
	ABUSE;
	ABUSE;
	assert_req(0, ACTION_WARN);
	cr_assert_str_eq(fx.reqs[0].top_cause, "munmap");
	cr_assert(strstr(fx.reqs[0].evidence, "; top cause munmap (50 of 95 splits of its tasks)"),
		  "%s", fx.reqs[0].evidence);
	cr_assert(strstr(fx.reqs[0].evidence, "abuser, strike 1"), "%s", fx.reqs[0].evidence);
	cr_assert_eq(decide_find(&st, ID)->top_cause, TAOD_CAUSE_MUNMAP);
	cr_assert_eq(decide_find(&st, ID)->top_cause_splits, 50);
	cr_assert_eq(decide_find(&st, ID)->task_splits, 95);
}

Test(decide, no_top_cause_when_no_split_cause_was_told)
{
	tick(0, 0);
	ABUSE;
	ABUSE;
	assert_req(0, ACTION_WARN);
	cr_assert_str_eq(fx.reqs[0].top_cause, "");
	cr_assert_null(strstr(fx.reqs[0].evidence, "top cause"), "%s", fx.reqs[0].evidence);
}

Test(decide, a_streak_moves_to_the_class_every_window_agrees_on)
{
	tick(0, 0);
	ABUSE;
	MISUSE; /* abuser then misuser: both at least misuser */
	cr_assert_eq(cls(), CLASS_MISUSER);
	ABUSE;
	ABUSE;
	cr_assert_eq(cls(), CLASS_ABUSER);
	MISUSE; /* below abuser, three in a row relax to misuser */
	MISUSE;
	GOOD;
	cr_assert_eq(cls(), CLASS_MISUSER);
}

Test(decide, misuser_walks_the_ladder_under_act_on_misuser)
{
	pol->act_on_misuser = true;
	tick(0, 0);
	MISUSE;
	MISUSE; /* misuser, strike 1 */
	cr_assert_eq(cls(), CLASS_MISUSER);
	assert_req(0, ACTION_WARN);
	cr_assert_eq(fx.reqs[0].pid, 777);
	MISUSE;
	MISUSE; /* strike 3 */
	assert_req(2, ACTION_RESTRICT);
}

Test(decide, below_min_allocs_is_not_judged)
{
	tick(0, 0);
	for (int i = 0; i < 6; i++)
		tick_mem(9, 9, 100 * MIB, 0); /* ratio 1, but 9 < min_allocs, none held */
	cr_assert_eq(cls(), CLASS_GOOD);
	cr_assert_eq(fx.nreqs, 0);
	cr_assert(!decide_find(&st, ID)->last.judged);
	cr_assert_eq(fx.task_reads, 0); /* good cgroups never cost a task read */
}

Test(decide, coverage_below_guarantee_is_rewarded_on_stock_and_tao)
{
	pol->coverage_guarantee = 80;
	pol->cooldown_ms = 1500;
	tick_mem(0, 0, 100 * MIB, 50 * MIB);
	tick_mem(100, 0, 100 * MIB, 50 * MIB); /* mean 50% of 100 MiB: 30 MiB short */
	assert_req(0, ACTION_COLLAPSE);
	cr_assert_eq(fx.reqs[0].bytes, 30 * MIB);
	cr_assert_eq(fx.reqs[0].pid, 0);
	tick_mem(100, 0, 100 * MIB, 50 * MIB); /* in cooldown */
	cr_assert_eq(fx.nreqs, 1);
	tao = true;
	tick_mem(100, 0, 100 * MIB, 50 * MIB);
	assert_req(1, ACTION_GRANT);
	tick_mem(100, 0, 100 * MIB, 90 * MIB);
	tick_mem(100, 0, 100 * MIB, 90 * MIB);
	tick_mem(100, 0, 100 * MIB, 90 * MIB); /* at 90%: nothing owed */
	cr_assert_eq(fx.nreqs, 2);
}

Test(decide, dry_run_and_policy_name_travel_with_the_request)
{
	pol->dry_run = true;
	tick(0, 0);
	ABUSE;
	ABUSE;
	cr_assert_eq(fx.nreqs, 1);
	cr_assert(fx.reqs[0].dry_run);
	cr_assert_str_eq(fx.reqs[0].policy, "default");
}

Test(decide, policy_from_the_current_set_applies_at_the_next_window)
{
	struct policy *strict = &policies.v[1];

	tick(0, 0);
	MISUSE;
	MISUSE;
	cr_assert_eq(cls(), CLASS_MISUSER);
	/* A reload adds a stricter policy for this cgroup. */
	*strict = *pol;
	strcpy(strict->name, "strict");
	strcpy(strict->globs[0], "/t/*");
	strict->nglobs = 1;
	strict->max_split_ratio = 0.1; /* 0.4 is now score 4 */
	policies.n = 2;
	policies.gen++; /* as a reload does */
	MISUSE;
	MISUSE;
	cr_assert_eq(cls(), CLASS_ABUSER);
	cr_assert_str_eq(decide_find(&st, ID)->policy, "strict");
	assert_req(0, ACTION_WARN);
	cr_assert_str_eq(fx.reqs[0].policy, "strict");
}

Test(decide, vanished_cgroups_are_forgotten)
{
	struct decide_io io = {.policies = &policies, .sink = decide_fixture_sink, .sink_ctx = &fx};

	tick(0, 0);
	cr_assert_not_null(decide_find(&st, ID));
	cgroup_table_begin_tick(&table);
	cgroup_table_sweep(&table, NULL, NULL, NULL, 0);
	decide_tick(&st, &table, now + WINDOW, &io);
	cr_assert_null(decide_find(&st, ID));
	cr_assert_eq(st.n, 0);
}

/* The horizon tests: the evidence decays with a half-life, not per window. */

Test(decide, splitting_a_window_after_faulting_is_judged_as_at_once)
{
	pol->horizon_ms = 600000;
	tick(0, 0);
	tick_mem(100, 0, 200 * MIB, 200 * MIB); /* 100 THPs faulted and held */
	tick_mem(0, 0, 200 * MIB, 200 * MIB);
	tick_mem(0, 100, 200 * MIB, 0); /* all split two windows later */
	cr_assert(decide_find(&st, ID)->last.judged);
	cr_assert_eq(decide_find(&st, ID)->last.level, CLASS_ABUSER);
	cr_assert(decide_find(&st, ID)->last.waste > 0.99, "%f", decide_find(&st, ID)->last.waste);
	tick_mem(0, 0, 200 * MIB, 0); /* quiet, but the waste stands: abuser */
	cr_assert_eq(cls(), CLASS_ABUSER);
	assert_req(0, ACTION_WARN);
	cr_assert_eq(fx.reqs[0].pid, 777);
}

Test(decide, thps_held_long_ago_still_count_as_given)
{
	pol->horizon_ms = 5 * WINDOW;
	tick(0, 0);
	tick_mem(100, 0, 200 * MIB, 200 * MIB);
	for (int i = 0; i < 60; i++) /* 12 half-lives: the faults are forgotten */
		tick_mem(0, 0, 200 * MIB, 200 * MIB);
	cr_assert(decide_find(&st, ID)->given < 1.0, "%f", decide_find(&st, ID)->given);
	tick_mem(0, 100, 200 * MIB, 0); /* but it held 100 until now */
	cr_assert(decide_find(&st, ID)->last.judged);
	cr_assert_eq(decide_find(&st, ID)->last.level, CLASS_ABUSER);
}

Test(decide, evidence_below_min_allocs_adds_up_over_the_horizon)
{
	pol->horizon_ms = 600000;
	tick(0, 0);
	for (int i = 0; i < 3; i++)
		tick_mem(3, 3, 100 * MIB, 0);
	cr_assert(!decide_find(&st, ID)->last.judged); /* 9 THPs so far */
	tick_mem(3, 3, 100 * MIB, 0);
	cr_assert(decide_find(&st, ID)->last.judged); /* 12 >= min_allocs */
	cr_assert_eq(decide_find(&st, ID)->last.level, CLASS_ABUSER);
}

Test(decide, a_tenant_that_stopped_is_not_struck_again_for_its_past)
{
	pol->horizon_ms = 600000;
	pol->ladder[RUNG_WARN] = 1;
	tick(0, 0);
	ABUSE;
	ABUSE; /* abuser, strike 1 */
	cr_assert_eq(fx.nreqs, 1);
	for (int i = 0; i < 5; i++)
		tick_mem(0, 0, 100 * MIB, 0); /* the waste stands, nothing new */
	cr_assert_eq(cls(), CLASS_ABUSER);
	cr_assert_eq(fx.nreqs, 1);
	ABUSE; /* new waste: strike 2 */
	cr_assert_eq(fx.nreqs, 2);
}

/* One window of 64 KiB folios: @faults faulted, @partial left partially mapped. */
static void tick_64k(uint64_t faults, uint64_t partial, uint64_t thp_splits)
{
	sizes_now.fault_alloc[4] += faults;
	sizes_now.partial[4] += partial;
	tick_mem(thp_splits ? 100 : 0, thp_splits, 100 * MIB, 0);
}

/* sizes = mthp: a 64 KiB folio left partially mapped breaks 1/32 of a THP;
 * half of 1024 folios (32 THPs' worth) stranded is waste 0.5, score 2. */
Test(decide, mthp_strands_judged_by_the_bytes_they_break)
{
	pol->sizes = POLICY_SIZES_MTHP;
	tick_64k(0, 0, 0);
	for (int i = 0; i < 4; i++)
		tick_64k(1024, 512, 0);
	cr_assert_float_eq(decide_find(&st, ID)->last.waste, 0.5, 1e-9);
	cr_assert_eq(cls(), CLASS_MISUSER);
}

Test(decide, mthp_used_well_stays_good_and_pmd_is_left_alone)
{
	pol->sizes = POLICY_SIZES_MTHP;
	tick_64k(0, 0, 0);
	for (int i = 0; i < 4; i++)
		tick_64k(1024, 0, 100); /* every PMD THP split: not this policy's business */
	cr_assert(decide_find(&st, ID)->last.judged);
	cr_assert_eq(cls(), CLASS_GOOD);
}

/* The default (sizes = pmd) judges as before: the same strands are no evidence. */
Test(decide, pmd_policy_ignores_mthp)
{
	tick_64k(0, 0, 0);
	for (int i = 0; i < 4; i++)
		tick_64k(1024, 512, 0);
	cr_assert_not(decide_find(&st, ID)->last.judged);
	cr_assert_eq(cls(), CLASS_GOOD);
}

/* What decide asks for a tenant judged under sizes = mthp carries the
 * policy's sizes: a shatter then aims at the folios below the PMD size. */
Test(decide, requests_carry_the_policy_sizes)
{
	pol->sizes = POLICY_SIZES_MTHP;
	pol->act_on_misuser = true;
	tick_64k(0, 0, 0);
	for (int i = 0; i < 8 && !fx.nreqs; i++)
		tick_64k(1024, 1024, 0);
	cr_assert_gt(fx.nreqs, 0);
	cr_assert_eq(fx.reqs[0].sizes, POLICY_SIZES_MTHP);
}

/* A first sample, then @n abusive windows. */
static void abuse_windows(int n)
{
	tick(0, 0);
	for (int i = 0; i < n; i++)
		ABUSE;
}

/* act_when = need, no contiguity pressure, nobody wanting: the abuser is
 * judged and warned, the ladder never climbs past warn, and the warning
 * says why. */
Test(decide, need_without_pressure_or_want_holds_the_ladder_at_warn)
{
	struct decide_need n = {.pressure = PRESSURE_NONE, .wanting_fallbacks = 1};

	need = &n;
	abuse_windows(8);
	cr_assert_eq(cls(), CLASS_ABUSER);
	cr_assert_geq(fx.nreqs, 3);
	for (unsigned i = 0; i < fx.nreqs; i++)
		assert_req(i, ACTION_WARN);
	cr_assert(strstr(fx.reqs[fx.nreqs - 1].evidence,
			 "held at warn: no contiguity pressure, no tenant wanting"),
		  "%s", fx.reqs[fx.nreqs - 1].evidence);
	cr_assert_leq(decide_find(&st, ID)->strikes, 2);
	cr_assert_geq(st.held, 1);
}

/* Under pressure (some) the ladder runs as it always did. */
Test(decide, need_under_pressure_climbs_the_ladder)
{
	struct decide_need n = {.pressure = PRESSURE_SOME, .wanting_fallbacks = 1};

	need = &n;
	abuse_windows(6);
	assert_req(0, ACTION_WARN);
	assert_req(1, ACTION_WARN);
	assert_req(2, ACTION_RESTRICT);
	assert_req(3, ACTION_RESTRICT);
	assert_req(4, ACTION_SHATTER);
	cr_assert_null(strstr(fx.reqs[4].evidence, "held at warn"), "%s", fx.reqs[4].evidence);
}

/* act_when = always climbs with no pressure at all. */
Test(decide, always_climbs_without_pressure)
{
	struct decide_need n = {.pressure = PRESSURE_NONE, .wanting_fallbacks = 1};

	need = &n;
	pol->act_always = true;
	abuse_windows(6);
	assert_req(2, ACTION_RESTRICT);
	assert_req(4, ACTION_SHATTER);
}

/* Held at warn, then pressure comes: the next strike climbs from where it
 * stood, not from the strikes that were held. */
Test(decide, held_ladder_climbs_once_pressure_comes)
{
	struct decide_need n = {.pressure = PRESSURE_NONE, .wanting_fallbacks = 1};

	need = &n;
	abuse_windows(6);
	cr_assert_eq(decide_find(&st, ID)->strikes, 2);
	n.pressure = PRESSURE_FULL;
	ABUSE; /* strike 3 */
	assert_req(fx.nreqs - 1, ACTION_RESTRICT);
}

/* Held at warn, then a tenant wants THPs while the abuser breaks nothing
 * more: what it strands is what the other lacks, so the held rung is taken
 * at its next window (the coverage experiment's abuser split its 289 THPs
 * once, and was only ever warned). Held windows warn once, not each time. */
Test(decide, a_held_rung_is_taken_when_need_comes_without_new_breakage)
{
	struct decide_need n = {.pressure = PRESSURE_NONE, .wanting_fallbacks = 1};
	const struct cg_judge *j;

	need = &n;
	pol->horizon_ms = 600 * WINDOW; /* the waste is remembered, as in taod.conf */
	pol->ladder[RUNG_WARN] = 0;
	pol->ladder[RUNG_RESTRICT] = 0;
	pol->ladder[RUNG_SHATTER] = 1;
	abuse_windows(3);
	cr_assert_eq(fx.nreqs, 1);
	assert_req(0, ACTION_WARN);
	tick(10, 0); /* faults, nothing new broken, nobody wanting: no second warn */
	j = decide_find(&st, ID);
	cr_assert_geq(j->last.level, CLASS_MISUSER, "the horizon still holds its waste");
	cr_assert_eq(fx.nreqs, 1);
	n.pressure = PRESSURE_SOME;
	tick(10, 0);
	cr_assert_eq(fx.nreqs, 2);
	assert_req(1, ACTION_SHATTER);
}

/* Another (good) tenant whose THP faults fall back is wanting: the ladder
 * runs without pressure; the abuser's own fallbacks would not count. */
Test(decide, a_wanting_tenant_lets_the_ladder_climb)
{
	struct decide_need n = {.pressure = PRESSURE_NONE, .wanting_fallbacks = 5};
	struct cg_judge *o;

	need = &n;
	machine_short = true;
	other_fallbacks = 1;
	abuse_windows(6);
	o = decide_find(&st, OTHER);
	cr_assert_not_null(o);
	cr_assert(o->last.wanting);
	cr_assert_eq(o->last.fallbacks, 10);
	assert_req(2, ACTION_RESTRICT);
}

/* Issue 37 item 2: a tenant whose child cgroup has a 1 MiB limit makes
 * its THP charges fail, and every one is a fallback. While the machine
 * shows no lack of blocks (no fallback but charges, no failed collapse,
 * no pressure) those fallbacks are its own limit's: it is not wanting,
 * and nobody else is shattered for it. */
Test(decide, fallbacks_while_the_machine_lacks_no_blocks_are_a_limits_not_a_want)
{
	struct decide_need n = {.pressure = PRESSURE_NONE, .wanting_fallbacks = 5};
	struct cg_judge *o;

	need = &n;
	other_fallbacks = 1;
	abuse_windows(6);
	o = decide_find(&st, OTHER);
	cr_assert_not_null(o);
	cr_assert_eq(o->last.fallbacks, 10);
	cr_assert_not(o->last.wanting);
	for (unsigned i = 0; i < fx.nreqs; i++)
		cr_assert_eq(fx.reqs[i].kind, ACTION_WARN, "request %u climbed without need", i);
}

/* Issue 37 item 2: a tenant with a guarantee that turned THPs off for
 * itself (PR_SET_THP_DISABLE) tries no THP: at 0% it is below its promise,
 * yet lacks nothing contiguity could give. One THP fault tried (or held)
 * makes it wanting. */
Test(decide, a_tenant_that_tries_no_thp_is_not_wanting_below_its_guarantee)
{
	struct decide_need n = {.wanting_fallbacks = 1000};

	need = &n;
	pol->coverage_guarantee = 90;
	tick_mem(0, 0, 64 * MIB, 0);
	tick_mem(0, 0, 64 * MIB, 0);
	cr_assert(decide_find(&st, ID)->last.below_guarantee);
	cr_assert_not(decide_find(&st, ID)->last.wanting);
	tick_mem(1, 0, 64 * MIB, 2 * MIB);
	cr_assert(decide_find(&st, ID)->last.wanting);
}

/* Good tenants wanting after @windows more windows in which /t/other's
 * faults fell back once, then no more. */
static unsigned wanting_after(uint64_t hold_ms, int windows)
{
	static struct decide_need n;

	n = (struct decide_need){.wanting_fallbacks = 5, .want_hold_ms = hold_ms};
	need = &n;
	machine_short = true;
	other_fallbacks = 1;
	tick(0, 0);
	other_step = 0;
	GOOD; /* /t/other: 10 fell back in this window, none after */
	for (int i = 0; i < windows; i++)
		GOOD;
	return st.wanting;
}

/* A want lasts the [pressure] hold after the window that showed it: a good
 * tenant whose faults fell back, then got its collapse, still lacks what
 * an abuser strands (the coverage experiment's abuser was never shattered:
 * the want was gone by its next window). Past the hold it is gone. */
Test(decide, a_want_lasts_the_pressure_hold)
{
	cr_assert_eq(wanting_after(3 * WINDOW, 2), 1);
	cr_assert_not(decide_find(&st, OTHER)->last.wanting); /* not as last judged */
}

Test(decide, a_want_ends_after_the_pressure_hold)
{
	cr_assert_eq(wanting_after(3 * WINDOW, 4), 0);
}

Test(decide, without_a_hold_a_want_ends_with_its_window)
{
	cr_assert_eq(wanting_after(0, 2), 0);
}

/* A collapse is asked for only where free PMD blocks are above the floor. */
Test(decide, collapse_needs_free_blocks_above_the_floor)
{
	struct decide_need n = {.free_known = true, .free_pmd_blocks = 4, .reward_free_blocks = 8};

	need = &n;
	pol->coverage_guarantee = 80;
	tick_mem(0, 0, 100 * MIB, 50 * MIB);
	tick_mem(100, 0, 100 * MIB, 50 * MIB);
	cr_assert_eq(fx.nreqs, 0);
	cr_assert(decide_find(&st, ID)->last.wanting); /* below its guarantee */
	n.free_pmd_blocks = 9;
	tick_mem(100, 0, 100 * MIB, 50 * MIB);
	assert_req(0, ACTION_COLLAPSE);
}

/* Wanting by its guarantee means short of it by a THP now: a tenant that
 * just started (its first sample a few pages at 0%) and now holds all but
 * 128 KiB of a 100% promise lacks no contiguity, though its window's mean
 * is half the promise; 4 MiB short it wants. */
Test(decide, a_tenant_short_of_less_than_a_thp_is_not_wanting)
{
	struct decide_need n = {.wanting_fallbacks = 1000};

	need = &n;
	pol->coverage_guarantee = 100;
	tick_mem(0, 0, 256 << 10, 0);
	tick_mem(32, 0, 64 * MIB, 64 * MIB - (128 << 10));
	cr_assert(decide_find(&st, ID)->last.below_guarantee, "the mean is below");
	cr_assert_not(decide_find(&st, ID)->last.wanting);
	tick_mem(32, 0, 64 * MIB, 60 * MIB);
	cr_assert(decide_find(&st, ID)->last.wanting);
}

/* Cgroup v2: a good tenant whose memory.pressure passes wanting_psi is
 * wanting; with wanting_psi 0 (the built-in) it is not. */
Test(decide, memory_pressure_makes_a_tenant_wanting_where_asked)
{
	struct decide_need n = {.wanting_fallbacks = 1000};
	struct cgroup_entry *e;

	need = &n;
	tick(0, 0);
	e = cgroup_table_find(&table, ID);
	e->psi_some = 25.0;
	GOOD;
	cr_assert_not(decide_find(&st, ID)->last.wanting);
	n.wanting_psi = 20;
	e->psi_some = 25.0;
	GOOD;
	cr_assert_not(decide_find(&st, ID)->last.wanting,
		      "its own stalls, while the machine lacks no blocks (its own limit)");
	machine_short = true;
	e->psi_some = 25.0;
	GOOD;
	cr_assert(decide_find(&st, ID)->last.wanting);
	cr_assert_float_eq(decide_find(&st, ID)->last.psi_some, 25.0, 1e-9);
}

static bool only_778_lives(uint32_t tgid)
{
	return tgid == 778;
}

/* A dead offender (a helper that split and exited) is passed over for a
 * live one of the tenant; with none alive the action is the whole tenant's. */
Test(decide, an_action_names_a_live_offender_or_the_whole_tenant)
{
	alive = only_778_lives;
	fx.nrows = 3;
	fx.rows[2] = fx.rows[0];
	fx.rows[2].tgid = 778;
	fx.rows[2].c.pmd_split = 1;
	tick(0, 0);
	ABUSE;
	ABUSE;
	assert_req(0, ACTION_WARN);
	cr_assert_eq(fx.reqs[0].pid, 778);
	fx.nrows = 2;
	ABUSE;
	ABUSE;
	cr_assert_gt(fx.nreqs, 1);
	cr_assert_eq(fx.reqs[fx.nreqs - 1].pid, 0);
}

/* Issue 26: where BPF counts the THPs partly mapped now, what lasts is the
 * waste. 100 splits a window that khugepaged repairs (2 left partly mapped
 * at each judgement) weigh 2 of 100 faulted; 60 left partly mapped with no
 * new split weigh 60. Given are faults: khugepaged's re-collapses of what
 * a tenant strands give it nothing new. */
static void tick_partly_mapped(uint64_t s, int64_t partly)
{
	table.partial_gauge = true;
	sizes_now.nr_partial[size_pmd_order()] = partly;
	tick(100, s);
}

Test(decide, splits_repaired_within_the_window_weigh_little)
{
	for (int i = 0; i < 4; i++)
		tick_partly_mapped(100, 2);
	cr_assert_float_eq(decide_find(&st, ID)->last.waste, 0.02, 1e-9);
	cr_assert_eq(cls(), CLASS_GOOD);
}

Test(decide, thps_left_partly_mapped_are_the_waste)
{
	for (int i = 0; i < 4; i++)
		tick_partly_mapped(0, 60);
	cr_assert_float_eq(decide_find(&st, ID)->last.waste, 0.6, 1e-9);
	cr_assert_neq(cls(), CLASS_GOOD);
}

Test(decide, re_collapses_of_stranded_thps_are_not_given)
{
	table.partial_gauge = true;
	sizes_now.nr_partial[size_pmd_order()] = 30;
	/* 10 faulted, 90 collapsed by khugepaged a window; 30 stranded of the
	 * 50 held: given are the 10, against the 50 held. */
	for (int i = 0; i < 4; i++) {
		collapses += 90;
		tick(10, 0);
	}
	cr_assert_float_eq(decide_find(&st, ID)->last.waste, 0.6, 1e-9);
}

/* Issue 26 item 4: a tenant that held a few THPs (below min_allocs) for
 * windows starts stranding them, then faults and strands more: the window
 * its waste began, too small to judge, counts toward the streak, so it is
 * classed abuser at its first judged window, two windows from its first
 * waste, not escalate_after judged windows later. */
Test(decide, a_late_abuser_is_classed_within_two_windows_of_its_first_waste)
{
	pol->horizon_ms = 600000;
	tick(0, 0);
	tick_mem(4, 0, 100 * MIB, 8 * MIB); /* 4 THPs, kept whole */
	tick_mem(0, 0, 100 * MIB, 8 * MIB);
	tick_mem(0, 0, 100 * MIB, 8 * MIB);
	cr_assert(!decide_find(&st, ID)->last.judged);
	tick_mem(2, 6, 100 * MIB, 0); /* its first waste: 6 of 6, too few to judge */
	cr_assert(!decide_find(&st, ID)->last.judged);
	cr_assert_eq(decide_find(&st, ID)->last.unjudged_level, CLASS_ABUSER);
	cr_assert_eq(cls(), CLASS_GOOD);
	tick_mem(8, 8, 100 * MIB, 0); /* 14 of 14: judged */
	cr_assert(decide_find(&st, ID)->last.judged);
	cr_assert_eq(cls(), CLASS_ABUSER);
	assert_req(0, ACTION_WARN);
}

/* A tenant that only ever wastes below min_allocs is never classed: an
 * unjudged window counts toward a streak but cannot end one. */
Test(decide, waste_too_small_to_judge_never_classes)
{
	pol->escalate_after = 1;
	tick(0, 0);
	for (int i = 0; i < 6; i++)
		tick_mem(3, 3, 100 * MIB, 0);
	cr_assert_eq(cls(), CLASS_GOOD);
	cr_assert_eq(fx.nreqs, 0);
}

/* Issue 26 item 3: a good glibc server whose workers free their caches at
 * exit splits THPs that its exit frees within the second. Once it holds
 * no task and no anon memory it gets no class and no action, and what its
 * teardown broke does not weigh if it starts again in the same cgroup. */
Test(decide, a_tenant_that_shut_down_gets_no_class_and_no_action)
{
	char held[128];
	struct cg_judge *j;

	pol->horizon_ms = 600000;
	tick(0, 0);
	GOOD;
	GOOD;
	tasks_left = false;
	tick_mem(0, 150, 0, 0); /* the exit: 150 splits, then nothing left */
	for (int i = 0; i < 4; i++)
		tick_mem(0, 0, 0, 0);
	j = decide_find(&st, ID);
	cr_assert_eq(cls(), CLASS_GOOD);
	cr_assert_eq(fx.nreqs, 0);
	cr_assert(j->last.empty && !j->last.judged);
	cr_assert_float_eq(j->broken, 0, 1e-9);
	cr_assert_not(hysteresis_held(j, pol, held, sizeof(held)), "%s", held);
	tasks_left = true;
	GOOD; /* started again: its teardown is not held against it */
	cr_assert_float_eq(decide_find(&st, ID)->last.waste, 0, 1e-9);
}

/* ... and an abuser that shut down keeps its class (no new one), with no
 * further action, and says why. */
Test(decide, an_abuser_that_shut_down_keeps_its_class_and_is_not_acted_on)
{
	char held[128];

	pol->horizon_ms = 600000;
	pol->ladder[RUNG_WARN] = 1;
	tick(0, 0);
	ABUSE;
	ABUSE;
	cr_assert_eq(cls(), CLASS_ABUSER);
	cr_assert_eq(fx.nreqs, 1);
	tasks_left = false;
	for (int i = 0; i < 5; i++)
		tick_mem(0, 0, 0, 0);
	cr_assert_eq(cls(), CLASS_ABUSER);
	cr_assert_eq(fx.nreqs, 1);
	cr_assert(hysteresis_held(decide_find(&st, ID), pol, held, sizeof(held)));
	cr_assert_str_eq(held, "no live task and no anon memory: nothing to judge");
}

/* No anon memory but a task left (moved in, its memory charged elsewhere):
 * judged as ever. */
Test(decide, a_tenant_with_a_task_and_no_anon_memory_is_judged)
{
	tick(0, 0);
	tick_mem(100, 100, 0, 0);
	tick_mem(100, 100, 0, 0);
	cr_assert_eq(cls(), CLASS_ABUSER);
}

/* Issue 36: what a tenant does to the THPs it holds, whatever made them.
 * One window of a tenant holding @whole THPs PMD-mapped whole and @partly
 * partly mapped, khugepaged having collapsed @collapsed more for it, with
 * no fault and no new split (mimalloc between its decommits). */
static void tick_held(uint64_t collapsed, uint64_t whole, int64_t partly)
{
	table.partial_gauge = true;
	sizes_now.nr_partial[size_pmd_order()] = partly;
	collapses += collapsed;
	tick_mem(0, 0, 200 * MIB, whole * (DECIDE_THP_BYTES));
}

/* The shipped policy's min_allocs and a horizon of a real policy, from an
 * empty first window. */
static void held_start(void)
{
	pol->horizon_ms = 600000;
	pol->min_allocs = 16;
	tick(0, 0);
}

/* An allocator whose THPs all came from khugepaged held 60 whole, then
 * keeps 13 of the 16 it holds partly mapped (mimalloc's 80%): over its
 * life 13 of 60 is under the line, but it is an abuser at the second
 * window of it, as the held waste (13 / 16) says. */
Test(decide, an_allocator_keeping_most_collapsed_thps_partly_mapped_is_an_abuser)
{
	struct cg_judge *j;
	char ev[320];

	held_start();
	tick_held(60, 60, 0);
	tick_held(0, 60, 0);
	cr_assert_eq(cls(), CLASS_GOOD);
	tick_held(10, 3, 13);
	j = decide_find(&st, ID);
	cr_assert(j->last.judged && j->last.held_judged && j->last.by_held);
	cr_assert_float_eq(j->last.held_waste, 13.0 / 16.0, 1e-9);
	cr_assert_float_eq(j->last.waste, 13.0 / 16.0, 1e-9);
	verdict_evidence(&j->last, pol, ev, sizeof(ev));
	cr_assert(strstr(ev, "waste 0.81 (max 0.25): 13.0 of 16.0 THPs held partly mapped now, "
			     "score 3.25"),
		  "%s", ev);
	cr_assert_eq(j->last.level, CLASS_ABUSER);
	cr_assert_eq(cls(), CLASS_GOOD, "one window cannot class it");
	tick_held(10, 4, 13);
	cr_assert_eq(cls(), CLASS_ABUSER);
}

/* Its evidence counts collapses and what it holds now: a tenant that never
 * held min_allocs THPs whole at once, all of them collapses, is judged on
 * the 16 it holds (13 partly mapped), not left "too few THPs to class". */
Test(decide, collapses_and_thps_held_partly_mapped_are_evidence)
{
	held_start();
	tick_held(8, 8, 0);
	tick_held(12, 3, 13);
	cr_assert(decide_find(&st, ID)->last.judged);
	tick_held(12, 3, 13);
	cr_assert_eq(cls(), CLASS_ABUSER);
}

/* A tenant that keeps most of what it holds partly mapped for one window
 * at a time, whole again the next (khugepaged re-collapsed it), is never
 * classed: the held waste is what it holds at each judgement, not a past. */
Test(decide, one_window_mostly_partly_mapped_at_a_time_does_not_class)
{
	held_start();
	tick_held(60, 60, 0);
	for (int i = 0; i < 4; i++) {
		tick_held(10, 3, 13);
		tick_held(13, 16, 0);
	}
	cr_assert_eq(cls(), CLASS_GOOD);
	cr_assert_float_eq(decide_find(&st, ID)->last.held_waste, 0, 1e-9);
	cr_assert_eq(fx.nreqs, 0);
}

/* A good tenant stays good: 5 THPs partly mapped of the 55 it holds (its
 * heaps' boundaries, re-collapsed and cut again), and a tenant left with
 * three THPs all cut (a heap's top at its teardown, fewer than a quarter
 * of min_allocs) is no evidence either. */
Test(decide, a_few_thps_partly_mapped_keep_a_tenant_good)
{
	held_start();
	for (int i = 0; i < 3; i++)
		tick_held(10, 50, 5);
	cr_assert(decide_find(&st, ID)->last.held_judged);
	cr_assert_not(decide_find(&st, ID)->last.by_held, "its life's waste says more");
	cr_assert_float_eq(decide_find(&st, ID)->last.held_waste, 5.0 / 55.0, 1e-9);
	for (int i = 0; i < 3; i++)
		tick_held(0, 0, 3);
	cr_assert(!decide_find(&st, ID)->last.held_judged);
	cr_assert_eq(cls(), CLASS_GOOD);
	cr_assert_eq(fx.nreqs, 0);
}
