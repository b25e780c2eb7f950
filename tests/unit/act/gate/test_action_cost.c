// SPDX-License-Identifier: GPL-2.0
/*
 * Cost and benefit of actions (issue 25 part 4): the vmstat deltas of the
 * cost counters, the lever's share of the time, the benefit follow-ups at
 * after and 5 x after, and the near-zero flag of a kind.
 */
#include <criterion/criterion.h>
#include <string.h>

#include "act/gate/action_cost.h"
#include "act/gate/action_benefit.h"
#include "act/gate/benefit_flag.h"

Test(action_cost, deltas_of_the_counters_both_reads_had)
{
	struct cost_vmstat b, a;
	struct action_cost c = {0};

	cost_vmstat_parse("nr_free_pages 10\npgmigrate_success 100\ncompact_stall 3\n"
			  "thp_split_page 7\nthp_split_pmd 9\n",
			  &b);
	cost_vmstat_parse("nr_free_pages 1\npgmigrate_success 612\ncompact_stall 2\n"
			  "thp_split_page 15\nthp_split_pmd 17\ncompact_fail 4\n",
			  &a);
	cost_kernel_delta(&c, &b, &a);
	cr_expect_eq(c.kernel[COST_pgmigrate_success], 512);
	cr_expect_eq(c.kernel[COST_thp_split_page], 8);
	cr_expect_eq(c.kernel[COST_thp_split_pmd], 8);
	cr_expect_eq(c.kernel[COST_compact_stall], 0, "a counter that went back counts 0");
	cr_expect(c.kernel_present & (1u << COST_compact_stall));
	cr_expect_not(c.kernel_present & (1u << COST_compact_fail), "not in the first read");
	cr_expect_eq(c.kernel[COST_compact_fail], 0);
	cr_expect_not(c.kernel_present & (1u << COST_thp_collapse_alloc));
}

Test(action_cost, the_lever_is_what_compaction_and_drain_leave)
{
	struct action_cost c = {0};

	c.cpu_us[PHASE_COMPACTION] = 300;
	c.cpu_us[PHASE_DRAIN] = 200;
	c.wall_us[PHASE_COMPACTION] = 900;
	cost_lever_from_total(&c, 1500, 1000);
	cr_expect_eq(c.cpu_us[PHASE_LEVER], 1000);
	cr_expect_eq(c.wall_us[PHASE_LEVER], 100);
	cost_lever_from_total(&c, 100, 100); /* clocks coarser than the phases */
	cr_expect_eq(c.cpu_us[PHASE_LEVER], 0);
	cr_expect_str_eq(action_phase_name(PHASE_DRAIN), "drain");
	cr_expect_str_eq(cost_counter_name(COST_compact_isolated), "compact_isolated");
}

Test(action_cost, a_phase_clock_charges_its_phase_only)
{
	struct action_cost c = {0};
	struct cost_clock k;
	volatile unsigned long x = 0;

	cost_clock_start(&k);
	for (unsigned long i = 0; i < 20000000UL; i++)
		x += i;
	cost_clock_charge(&c, PHASE_COMPACTION, &k);
	cr_expect_gt(c.cpu_us[PHASE_COMPACTION], 0, "a busy loop takes CPU time");
	cr_expect_geq(c.wall_us[PHASE_COMPACTION], c.cpu_us[PHASE_COMPACTION] / 2);
	cr_expect_eq(c.cpu_us[PHASE_LEVER] + c.cpu_us[PHASE_DRAIN], 0);
	cost_clock_charge(NULL, PHASE_DRAIN, &k); /* not measured: nothing */
}

static struct benefit_tenant now_t[2];

static bool tenant_now(void *ctx, uint64_t id, struct benefit_tenant *out)
{
	(void)ctx;
	for (int i = 0; i < 2; i++)
		if (now_t[i].id == id) {
			*out = now_t[i];
			return true;
		}
	return false;
}

static unsigned wanting_two(void *ctx, struct benefit_tenant *out, unsigned max)
{
	(void)ctx;
	cr_assert_geq(max, 2);
	out[0] = (struct benefit_tenant){.id = 11, .coverage = 40, .fallbacks = 100};
	out[1] = (struct benefit_tenant){.id = 12, .coverage = -1, .fallbacks = 5};
	return 2;
}

static struct action_benefit got[4];
static int ngot;

static void collect(void *ctx, const struct benefit_pending *p, const struct action_benefit *b)
{
	(void)ctx;
	cr_expect_eq(p->kind, ACTION_SHATTER);
	cr_expect_str_eq(p->cgroup, "/abuser");
	got[ngot++] = *b;
}

Test(action_benefit, followed_up_after_and_at_five_times_after)
{
	struct benefit_source src = {.wanting = wanting_two, .tenant = tenant_now};
	struct benefit_tracker *t = calloc(1, sizeof(*t));
	struct action_record rec = {.id = 7, .req = {.kind = ACTION_SHATTER, .cgroup = "/abuser"}};
	struct benefit_snapshot then = {.t_ms = 1000, .free_known = true, .free_pmd = 20};

	rec.cost.measured = true;
	rec.cost.cpu_us[PHASE_LEVER] = 1500;
	benefit_snapshot_tenants(&then, &src);
	benefit_follow(t, &rec, &then);
	now_t[0] = (struct benefit_tenant){.id = 11, .coverage = 52.5, .fallbacks = 160};
	now_t[1] = (struct benefit_tenant){.id = 12, .coverage = 30, .fallbacks = 5};
	ngot = 0;
	cr_expect_eq(benefit_next_due(t, 60000), 61000);
	cr_expect_eq(benefit_due(t, 60999, 60000, true, 24, &src, collect, NULL), 0);
	cr_expect_eq(benefit_due(t, 61000, 60000, true, 24, &src, collect, NULL), 1);
	cr_expect_eq(got[0].id, 7);
	cr_expect_not(got[0].final);
	cr_expect_eq(got[0].after_ms, 60000);
	cr_expect_eq(got[0].free_pmd_regained, 4);
	cr_expect_eq(got[0].wanting, 2);
	cr_expect_eq(got[0].coverage_n, 1, "the tenant unknown at the action is left out");
	cr_expect_float_eq(got[0].coverage_change, 12.5, 1e-9);
	cr_expect_float_eq(got[0].fallback_rate, 1.0, 1e-9, "60 fallbacks in 60 s");
	cr_expect_eq(benefit_next_due(t, 60000), 301000);
	now_t[0].id = 99; /* tenant 11 gone by the last follow-up */
	cr_expect_eq(benefit_due(t, 301000, 60000, false, 0, &src, collect, NULL), 1);
	cr_expect(got[1].final);
	cr_expect_not(got[1].free_known, "free blocks unread now");
	cr_expect_eq(got[1].coverage_n, 0, "11 gone, 12 unknown at the action");
	cr_expect_eq(got[1].wanting, 2);
	cr_expect_eq(benefit_next_due(t, 60000), UINT64_MAX, "the last one frees the slot");
	free(t);
}

Test(action_benefit, more_actions_than_slots_drop_the_oldest)
{
	struct benefit_tracker *t = calloc(1, sizeof(*t));
	struct action_record rec = {.req = {.kind = ACTION_COLLAPSE, .cgroup = "/g"}};

	for (int i = 0; i < BENEFIT_PENDING + 1; i++) {
		struct benefit_snapshot then = {.t_ms = 1000 + (uint64_t)i};

		rec.id = (uint64_t)i + 1;
		benefit_follow(t, &rec, &then);
	}
	cr_expect_eq(benefit_next_due(t, 10), 1011, "action 1 (t 1000) was dropped");
	free(t);
}

static struct action_benefit flat(int64_t regained, unsigned cov_n, double cov)
{
	return (struct action_benefit){.final = true,
				       .free_known = true,
				       .free_pmd_regained = regained,
				       .coverage_n = cov_n,
				       .coverage_change = cov};
}

Test(benefit_flag, near_zero_over_the_last_actions_with_numbers)
{
	struct benefit_log l = {0};
	char why[320];
	struct action_benefit b = flat(0, 0, 0);

	benefit_log_add(&l, &b, 2000);
	benefit_log_add(&l, &b, 4000);
	cr_expect_not(benefit_near_zero(&l, why, sizeof(why)), "two actions are too few");
	cr_expect(strstr(why, "2 of 3") != NULL, "%s", why);
	b = flat(1, 0, 0);
	benefit_log_add(&l, &b, 3000);
	cr_expect(benefit_near_zero(&l, why, sizeof(why)));
	cr_expect(strstr(why, "+0.3 free 2 MiB blocks") != NULL, "%s", why);
	cr_expect(strstr(why, "3.0 ms of taod CPU") != NULL, "%s", why);
	cr_expect(strstr(why, "next to no benefit") != NULL, "%s", why);
	b = flat(5, 0, 0); /* pushes the first out: 0, 1, 5 = 2 per action */
	benefit_log_add(&l, &b, 3000);
	cr_expect_not(benefit_near_zero(&l, NULL, 0));
}

Test(benefit_flag, coverage_gained_is_a_benefit_too)
{
	struct benefit_log l = {0};
	struct action_benefit b = flat(0, 1, 2.5);

	for (int i = 0; i < BENEFIT_FLAG_ACTIONS; i++)
		benefit_log_add(&l, &b, 1000);
	cr_expect_not(benefit_near_zero(&l, NULL, 0));
	b = flat(0, 1, 0.2);
	for (int i = 0; i < BENEFIT_FLAG_ACTIONS; i++)
		benefit_log_add(&l, &b, 1000);
	cr_expect(benefit_near_zero(&l, NULL, 0));
}

Test(benefit_flag, unknown_everywhere_says_nothing)
{
	struct benefit_log l = {0};
	struct action_benefit b = {.final = true};

	for (int i = 0; i < BENEFIT_FLAG_ACTIONS; i++)
		benefit_log_add(&l, &b, 1000);
	cr_expect_not(benefit_near_zero(&l, NULL, 0), "nothing read is no evidence of nothing");
}
