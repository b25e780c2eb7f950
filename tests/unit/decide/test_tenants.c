// SPDX-License-Identifier: GPL-2.0
/*
 * Tenants: a policy's glob names the tenant, its subtree counts to it, and
 * removed children fold into their parent, so spreading over child
 * cgroups or hopping between them changes nothing.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>

#include "decide_fixture.h"

#define WINDOW 1000
#define ROOT   1

static struct cgroup_table table;
static struct decide_state st;
static struct policy_set policies;
static struct decide_fixture fx;
static uint64_t now;

struct cg {
	uint64_t id, parent;
	const char *path;
	uint64_t allocs, splits;
	bool gone;
};

static struct policy *add_policy(const char *name, const char *glob)
{
	struct policy *p = &policies.v[policies.n++];

	*p = policies.v[0];
	snprintf(p->name, sizeof(p->name), "%s", name);
	if (glob) {
		snprintf(p->globs[0], sizeof(p->globs[0]), "%s", glob);
		p->nglobs = 1;
	}
	return p;
}

static void setup(void)
{
	struct policy *def;

	cgroup_table_init(&table, 64);
	decide_init(&st);
	memset(&policies, 0, sizeof(policies));
	policy_builtin_default(&policies.v[0]);
	policies.n = 1;
	policies.gen = 1;
	def = &policies.v[0];
	def->window_ms = WINDOW;
	def->min_allocs = 8;
	def->cooldown_ms = 0;
	def->escalate_after = 1;
	def->ladder[RUNG_WARN] = 1;
	def->ladder[RUNG_RESTRICT] = 0;
	def->ladder[RUNG_SHATTER] = 0;
	memset(&fx, 0, sizeof(fx));
	now = 100000;
}

static void teardown(void)
{
	cgroup_table_free(&table);
	decide_free(&st);
}

TestSuite(tenants, .init = setup, .fini = teardown);

/* One tick (one window): the walk sees the cgroups not gone, BPF counts all. */
static void tick(struct cg *cgs, size_t n)
{
	struct decide_io io = {.policies = &policies,
			       .sink = decide_fixture_sink,
			       .sink_ctx = &fx,
			       .tasks = decide_fixture_tasks,
			       .tasks_ctx = &fx};

	now += WINDOW;
	cgroup_table_begin_tick(&table);
	for (size_t i = 0; i < n; i++) {
		struct taod_cg_counters c = {.thp_fault_alloc = cgs[i].allocs,
					     .pmd_split = cgs[i].splits,
					     .pmd_split_pages = cgs[i].splits * 512};

		if (cgs[i].id != ROOT)
			cgroup_table_set_counters(&table, cgs[i].id, &c, now);
	}
	for (size_t i = 0; i < n; i++)
		if (!cgs[i].gone)
			cgroup_table_touch(&table, cgs[i].id, cgs[i].path, cgs[i].parent, now);
	cgroup_table_sweep(&table, NULL, NULL, NULL, now);
	cgroup_table_sample(&table, now, WINDOW);
	decide_tick(&st, &table, now, &io);
}

static struct cg_judge *judge(uint64_t id)
{
	struct cg_judge *j = decide_find(&st, id);

	cr_assert_not_null(j, "no judge for %llu", (unsigned long long)id);
	return j;
}

Test(tenants, a_policy_subtree_is_one_tenant_judged_at_its_root)
{
	struct cg cgs[] = {
	    {ROOT, 0, "/"},	    {10, ROOT, "/jobs"},    {11, 10, "/jobs/a"},
	    {12, 11, "/jobs/a/w1"}, {13, 11, "/jobs/a/w2"},
	};

	add_policy("jobs", "/jobs/*");
	tick(cgs, 5);
	/* Each worker alone is below min_allocs; together they are judged. */
	cgs[3].allocs = cgs[3].splits = 5;
	cgs[4].allocs = cgs[4].splits = 5;
	tick(cgs, 5);
	cr_assert_eq(judge(12)->tenant_id, 11);
	cr_assert_eq(judge(13)->tenant_id, 11);
	cr_assert_eq(judge(11)->tenant_id, 11);
	cr_assert_eq(judge(10)->tenant_id, 10, "/jobs is the default policy's: its own");
	cr_assert_eq(judge(11)->members, 3);
	cr_assert(judge(11)->last.judged);
	cr_assert_eq(judge(11)->cls, CLASS_ABUSER);
	cr_assert_eq(judge(12)->hist_len, 0, "members are never judged alone");
	cr_assert_eq(judge(13)->hist_len, 0);
	cr_assert_eq(fx.nreqs, 1);
	cr_assert_eq(fx.reqs[0].cgroup_id, 11);
	cr_assert_str_eq(fx.reqs[0].cgroup, "/jobs/a");
	cr_assert_str_eq(fx.reqs[0].policy, "jobs");
}

Test(tenants, a_more_specific_policy_below_starts_a_tenant_of_its_own)
{
	struct cg cgs[] = {
	    {ROOT, 0, "/"},
	    {10, ROOT, "/k"},
	    {11, 10, "/k/g"},
	    {12, 11, "/k/g/pod"},
	};

	add_policy("k", "/k/*");
	add_policy("g", "/k/g/*");
	tick(cgs, 4);
	cr_assert_eq(judge(11)->tenant_id, 11);
	cr_assert_eq(judge(12)->tenant_id, 12);
	cr_assert_str_eq(judge(12)->pol->name, "g");
}

Test(tenants, a_hopper_is_judged_in_the_parent_it_hops_under)
{
	struct cg cgs[] = {
	    {ROOT, 0, "/"},
	    {20, ROOT, "/p"},
	    {21, 20, "/p/hop1"},
	    {22, 20, "/p/hop2"},
	};

	fx.rows[0] = (struct task_row){.tgid = 4242};
	fx.rows[0].c.cgroup_id = 21; /* its last event was in the removed hop1 */
	fx.rows[0].c.pmd_split = 12;
	strcpy(fx.rows[0].c.comm, "hopper");
	fx.nrows = 1;
	cgs[3].gone = true; /* hop2 not made yet */
	tick(cgs, 4);
	cgs[2].allocs = cgs[2].splits = 6; /* below min_allocs in hop1 alone */
	cgs[2].gone = true;		   /* and hop1 is removed */
	cgs[3].gone = false;
	tick(cgs, 4);
	cgs[3].allocs = cgs[3].splits = 6;
	cgs[3].gone = true;
	tick(cgs, 4);
	cr_assert_null(decide_find(&st, 21));
	cr_assert_null(decide_find(&st, 22));
	cr_assert_eq(judge(20)->acc.pmd_split, 12);
	cr_assert_eq(judge(20)->cls, CLASS_ABUSER);
	cr_assert(fx.nreqs >= 1);
	cr_assert_eq(fx.reqs[0].cgroup_id, 20);
	cr_assert_eq(fx.reqs[0].pid, 4242, "the task is named though its cgroup is gone");
}

Test(tenants, tenant_of_cgroup_follows_removed_cgroups)
{
	struct cg cgs[] = {
	    {ROOT, 0, "/"},
	    {30, ROOT, "/t"},
	    {31, 30, "/t/a"},
	    {32, 31, "/t/a/b"},
	};

	add_policy("t", "/t/*");
	tick(cgs, 4);
	cr_assert_eq(tenant_of_cgroup(&st, &table, 32), 31);
	cgs[3].gone = true;
	tick(cgs, 4);
	cr_assert_eq(tenant_of_cgroup(&st, &table, 32), 31, "removed: its parent's tenant");
	cr_assert_eq(tenant_of_cgroup(&st, &table, 999), 0);
}
