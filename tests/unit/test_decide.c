// SPDX-License-Identifier: GPL-2.0
/*
 * The classifier driven by hand-made counter series: one sample per tick,
 * one tick per window, so each step below is exactly one judged window.
 */
#include <criterion/criterion.h>
#include <string.h>

#include "taod/task_rows.h"
#include "taod/decide.h"

#define ID     42
#define OTHER  43
#define WINDOW 1000
#define MIB    (1ULL << 20)

static struct cgroup_table table;
static struct decide_state st;
static struct policy_set policies;
static struct policy *pol;
static struct action_request reqs[64];
static unsigned nreqs, task_reads;
static uint64_t now, allocs, splits;
static struct task_row rows[2];
static bool tao;

static void capture(void *ctx, const struct action_request *r)
{
	(void)ctx;
	cr_assert(nreqs < 64);
	reqs[nreqs++] = *r;
}

static size_t tasks(void *ctx, struct task_row *out, size_t max)
{
	(void)ctx;
	task_reads++;
	cr_assert(max >= 2);
	memcpy(out, rows, sizeof(rows));
	return 2;
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
	nreqs = task_reads = 0;
	now = 100000;
	allocs = splits = 0;
	tao = false;
	memset(rows, 0, sizeof(rows));
	rows[0].tgid = 777; /* most splits first, as task_rows_collect sorts */
	rows[0].c.cgroup_id = ID;
	rows[0].c.pmd_split = 90;
	rows[0].c.thp_fault_alloc = 100;
	strcpy(rows[0].c.comm, "abuser");
	rows[1].tgid = 888;
	rows[1].c.cgroup_id = OTHER;
	rows[1].c.pmd_split = 5;
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
	struct decide_io io = {
	    .policies = &policies, .tao_kernel = tao, .sink = capture, .tasks = tasks};
	struct cgroup_entry *e;

	now += WINDOW;
	allocs += a;
	splits += s;
	c.thp_fault_alloc = allocs;
	c.pmd_split = splits;
	cgroup_table_begin_tick(&table);
	e = cgroup_table_touch(&table, ID, "/t/cg", now);
	cgroup_table_set_counters(&table, ID, &c, now);
	cgroup_entry_set_memstat(e, &m, true);
	cgroup_table_sample(&table, now, WINDOW);
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
	cr_assert(i < nreqs, "only %u requests", nreqs);
	cr_assert_eq(reqs[i].kind, kind, "request %u is %s, not %s", i,
		     action_kind_name(reqs[i].kind), action_kind_name(kind));
	cr_assert_eq(reqs[i].cgroup_id, ID);
	cr_assert_str_eq(reqs[i].cgroup, "/t/cg");
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
	cr_assert_eq(nreqs, 0);
	ABUSE; /* second in a row (escalate_after = 2): abuser, strike 1 */
	cr_assert_eq(cls(), CLASS_ABUSER);
	assert_req(0, ACTION_WARN);
	cr_assert_eq(reqs[0].pid, 777); /* the offending task of this cgroup */
	cr_assert(strstr(reqs[0].evidence, "100 THP allocs, 100 splits, ratio 1.00"), "%s",
		  reqs[0].evidence);
	ABUSE; /* strike 2: still warn */
	assert_req(1, ACTION_WARN);
	ABUSE; /* strike 3 */
	assert_req(2, ACTION_RESTRICT);
	cr_assert_eq(reqs[2].pid, 0);
	ABUSE;
	assert_req(3, ACTION_RESTRICT);
	ABUSE; /* strike 5 */
	assert_req(4, ACTION_SHATTER);
	cr_assert_eq(reqs[4].pid, 777);
	cr_assert_eq(reqs[4].bytes, 0); /* all there is, within act's byte budget */
	GOOD;
	GOOD;
	cr_assert_eq(cls(), CLASS_ABUSER); /* relax_after = 3 */
	cr_assert_eq(nreqs, 5);
	GOOD;
	cr_assert_eq(cls(), CLASS_GOOD);
	assert_req(5, ACTION_GRANT); /* restricted zones given back */
	cr_assert_eq(decide_find(&st, ID)->strikes, 0);
	cr_assert_eq(nreqs, 6);
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
	cr_assert_eq(nreqs, 3);
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
	cr_assert_eq(nreqs, 1);
	cr_assert(decide_next_action(decide_find(&st, ID), pol, false, &kind, &due));
	cr_assert_eq(kind, ACTION_WARN);
	cr_assert_eq(due, now + 3000); /* first judgement after the cooldown */
	ABUSE;
	ABUSE;
	cr_assert_eq(nreqs, 1);
	cr_assert_eq(decide_find(&st, ID)->strikes, 1);
	ABUSE; /* t + 3000: strike 2 */
	cr_assert_eq(nreqs, 2);
	assert_req(1, ACTION_WARN);
	cr_assert_eq(decide_find(&st, ID)->strikes, 2);
	cr_assert(decide_next_action(decide_find(&st, ID), pol, false, &kind, &due));
	cr_assert_eq(kind, ACTION_RESTRICT);
}

Test(decide, misuser_is_listed_but_not_acted_on)
{
	tick(0, 0);
	MISUSE;
	cr_assert_eq(cls(), CLASS_GOOD);
	MISUSE;
	cr_assert_eq(cls(), CLASS_MISUSER);
	MISUSE;
	MISUSE;
	cr_assert_eq(nreqs, 0);
	cr_assert_eq(decide_find(&st, ID)->noffenders, 1);
	cr_assert_eq(decide_find(&st, ID)->offenders[0].pid, 777);
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

Test(decide, below_min_allocs_is_not_judged)
{
	tick(0, 0);
	for (int i = 0; i < 6; i++)
		tick(9, 9); /* ratio 1, but 9 < min_allocs */
	cr_assert_eq(cls(), CLASS_GOOD);
	cr_assert_eq(nreqs, 0);
	cr_assert(!decide_find(&st, ID)->last.judged);
	cr_assert_eq(task_reads, 0); /* good cgroups never cost a task read */
}

Test(decide, coverage_below_guarantee_is_rewarded_on_stock_and_tao)
{
	pol->coverage_guarantee = 80;
	pol->cooldown_ms = 1500;
	tick_mem(0, 0, 100 * MIB, 50 * MIB);
	tick_mem(100, 0, 100 * MIB, 50 * MIB); /* mean 50% of 100 MiB: 30 MiB short */
	assert_req(0, ACTION_COLLAPSE);
	cr_assert_eq(reqs[0].bytes, 30 * MIB);
	cr_assert_eq(reqs[0].pid, 0);
	tick_mem(100, 0, 100 * MIB, 50 * MIB); /* in cooldown */
	cr_assert_eq(nreqs, 1);
	tao = true;
	tick_mem(100, 0, 100 * MIB, 50 * MIB);
	assert_req(1, ACTION_GRANT);
	tick_mem(100, 0, 100 * MIB, 90 * MIB);
	tick_mem(100, 0, 100 * MIB, 90 * MIB);
	tick_mem(100, 0, 100 * MIB, 90 * MIB); /* at 90%: nothing owed */
	cr_assert_eq(nreqs, 2);
}

Test(decide, dry_run_and_policy_name_travel_with_the_request)
{
	pol->dry_run = true;
	tick(0, 0);
	ABUSE;
	ABUSE;
	cr_assert_eq(nreqs, 1);
	cr_assert(reqs[0].dry_run);
	cr_assert_str_eq(reqs[0].policy, "default");
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
	MISUSE;
	MISUSE;
	cr_assert_eq(cls(), CLASS_ABUSER);
	cr_assert_str_eq(decide_find(&st, ID)->policy, "strict");
	assert_req(0, ACTION_WARN);
	cr_assert_str_eq(reqs[0].policy, "strict");
}

Test(decide, vanished_cgroups_are_forgotten)
{
	struct decide_io io = {.policies = &policies, .sink = capture};

	tick(0, 0);
	cr_assert_not_null(decide_find(&st, ID));
	cgroup_table_begin_tick(&table);
	cgroup_table_sweep(&table, NULL, NULL);
	decide_tick(&st, &table, now + WINDOW, &io);
	cr_assert_null(decide_find(&st, ID));
	cr_assert_eq(st.n, 0);
}
