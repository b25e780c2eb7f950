// SPDX-License-Identifier: GPL-2.0
/*
 * The actor's dispatch by the kinds' table: a backend gives op[kind] for
 * the kinds it carries out and nothing for the others (no stubs); the
 * table says which kinds spend the byte budget and which act on no cgroup.
 */
#include <criterion/criterion.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>

#include "../act_fixture.h"

static enum action_kind called[8];
static uint64_t budgets[8];
static int ncalls;
static const char *off_reason;

static void op(const struct act_ctx *c, const struct action_request *req, uint64_t budget,
	       struct act_outcome *o)
{
	(void)c;
	called[ncalls] = req->kind;
	budgets[ncalls++] = budget;
	o->bytes = 4096;
	act_outcome_set(o, RESULT_DONE, 0, "did %s", action_kind_name(req->kind));
}

static const char *withheld(const struct act_ctx *c, enum action_kind k)
{
	(void)c;
	return k == ACTION_COLLAPSE ? off_reason : NULL;
}

/* Only shatter, collapse (when not withheld) and resize-zones. */
static const struct act_backend_ops partial_ops = {
    .name = "partial",
    .op = {[ACTION_SHATTER] = op, [ACTION_COLLAPSE] = op, [ACTION_RESIZE_ZONES] = op},
    .withheld = withheld,
    .read_stats = fx_no_stats,
};

static void setup(void)
{
	fx_setup();
	ncalls = 0;
	off_reason = NULL;
	fx.cfg.enforce.shatter_bytes_per_minute = 1 << 20;
	snprintf(fx.cfg.enforce.allowlist, sizeof(fx.cfg.enforce.allowlist), "/app/*");
}

TestSuite(actor_dispatch, .init = setup, .fini = fx_teardown);

Test(actor_dispatch, actor_submit_without_an_op_is_unsupported)
{
	struct action_record rec;

	fx.cfg.enforce.allowlist[0] = '\0';
	fx_open(&partial_ops);
	cr_assert_eq(fx_submit(ACTION_RESTRICT, "/app/a", 0, 0, &rec), RESULT_UNSUPPORTED);
	cr_assert(strstr(rec.detail, "the partial backend has none"), "%s", rec.detail);
	cr_assert_eq(fx_submit(ACTION_GRANT, "/app/a", 0, 0, &rec), RESULT_UNSUPPORTED);
	cr_assert_eq(fx_submit(ACTION_WARN, "/app/a", 0, 0, &rec), RESULT_DONE,
		     "warn is the actor's own");
	cr_assert_eq(fx_submit(ACTION_SHATTER, "/app/a", 0, 0, &rec), RESULT_DONE, "%s",
		     rec.detail);
	cr_assert_str_eq(rec.detail, "did shatter");
	cr_assert_eq(ncalls, 1);
	cr_assert_eq(called[0], ACTION_SHATTER);
}

Test(actor_dispatch, actor_submit_withheld_op_says_which_setting)
{
	struct action_record rec;

	fx.cfg.enforce.allowlist[0] = '\0';
	off_reason = "turn it on here";
	fx_open(&partial_ops);
	cr_assert_eq(fx_submit(ACTION_COLLAPSE, "/app/a", 0, 0, &rec), RESULT_UNSUPPORTED);
	cr_assert_str_eq(rec.detail, "collapse is off in the partial backend: turn it on here");
	off_reason = NULL;
	cr_assert_eq(fx_submit(ACTION_COLLAPSE, "/app/a", 0, 0, &rec), RESULT_DONE, "%s",
		     rec.detail);
	cr_assert_eq(ncalls, 1);
}

/* Byte kinds get the budget left; machine-wide kinds skip the cgroup checks. */
Test(actor_dispatch, actor_submit_reads_budget_and_reach_from_the_table)
{
	struct action_record rec;
	struct action_request r = fx_req(ACTION_RESIZE_ZONES, NULL, 0, 0);

	fx_open(&partial_ops);
	cr_assert_eq(fx_submit(ACTION_SHATTER, "/app/a", 0, 0, &rec), RESULT_ALLOWLISTED);
	cr_assert_eq(actor_submit(fx.actor, &r, &rec), RESULT_DONE, "%s", rec.detail);
	fx.cfg.enforce.allowlist[0] = '\0';
	actor_set_settings(fx.actor, &fx.cfg.enforce, &fx.cfg.k);
	cr_assert_eq(fx_submit(ACTION_SHATTER, "/app/a", 0, 0, &rec), RESULT_DONE, "%s",
		     rec.detail);
	cr_assert_eq(fx_submit(ACTION_SHATTER, "/app/a", 0, 0, &rec), RESULT_DONE, "%s",
		     rec.detail);
	cr_assert_eq(ncalls, 3);
	cr_assert_eq(called[0], ACTION_RESIZE_ZONES);
	cr_assert_eq(budgets[1], 1 << 20);
	cr_assert_eq(budgets[2], (1 << 20) - 4096, "the first shatter's bytes were charged");
}

/* Decide and control name kinds from the kinds' table: one past it is a bug. */
Test(actor_dispatch, actor_submit_of_a_kind_beyond_the_table_aborts, .signal = SIGABRT)
{
	fx_open(&partial_ops);
	fx_submit(ACTION_KIND_MAX, "/app/a", 0, 0, NULL);
}
