// SPDX-License-Identifier: GPL-2.0
/*
 * Kinds whose row says off_loop (shatter, collapse) are carried out in an
 * offload child once the actor has a loop: the caller is told when the
 * child ends, the budgets are charged on the loop's side, one runs at a
 * time with the rest queued in order, and the same action asked again
 * while it waits or works backs off. Other kinds stay in the caller.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "../act_fixture.h"
#include "common/clock.h"
#include "common/offload.h"

static sd_event *loop;
static struct action_record told[8];
static int ntold;
static uint64_t budgets_seen;

static void op(const struct act_ctx *c, const struct action_request *req, uint64_t budget,
	       struct act_outcome *o)
{
	(void)c;
	o->bytes = 4096;
	act_outcome_set(o, RESULT_DONE, 0, "pid %d budget %llu %s", (int)getpid(),
			(unsigned long long)budget, req->cgroup);
}

static const struct act_backend_ops child_ops = {
    .name = "child",
    .op = {[ACTION_SHATTER] = op, [ACTION_COLLAPSE] = op},
    .read_stats = fx_no_stats,
};

static void tell(void *ctx, const struct action_record *rec)
{
	(void)ctx;
	told[ntold++] = *rec;
}

static void setup(void)
{
	fx_setup();
	ntold = 0;
	budgets_seen = 0;
	fx.cfg.enforce.shatter_bytes_per_minute = 1 << 20;
	fx.cfg.enforce.allowlist[0] = '\0';
	cr_assert_eq(sd_event_new(&loop), 0);
	fx_open(&child_ops);
	actor_set_event(fx.actor, loop);
}

static void teardown(void)
{
	offload_stop_all();
	fx_teardown();
	sd_event_unref(loop);
}

TestSuite(actor_off_loop, .init = setup, .fini = teardown);

static void run_until(int n)
{
	uint64_t end = monotonic_ms() + 10000;

	while (ntold < n && monotonic_ms() < end)
		cr_assert_geq(sd_event_run(loop, 100 * 1000), 0);
	cr_assert_eq(ntold, n, "told %d of %d", ntold, n);
}

static void submit(enum action_kind kind, const char *cgroup)
{
	struct action_request r = fx_req(kind, cgroup, 0, 0);

	actor_submit_then(fx.actor, &r, tell, NULL);
}

Test(actor_off_loop, a_shatter_is_carried_out_in_a_child_and_told_when_it_ends)
{
	int pid;

	submit(ACTION_SHATTER, "/app/a");
	cr_assert_eq(ntold, 0, "not done in the caller");
	cr_assert_eq(actor_pending(fx.actor), 1);
	run_until(1);
	cr_assert_eq(told[0].result, RESULT_DONE, "%s", told[0].detail);
	cr_assert_eq(sscanf(told[0].detail, "pid %d", &pid), 1, "%s", told[0].detail);
	cr_assert_neq(pid, getpid(), "the backend ran in a child");
	cr_assert_eq(actor_pending(fx.actor), 0);
	/* Charged on the loop's side: the next one's budget is what is left. */
	submit(ACTION_SHATTER, "/app/a");
	run_until(2);
	cr_assert(strstr(told[1].detail, "budget 1044480"), "%s", told[1].detail);
}

Test(actor_off_loop, one_at_a_time_in_order_and_the_same_twice_backs_off)
{
	submit(ACTION_SHATTER, "/app/a");
	submit(ACTION_COLLAPSE, "/app/b");
	submit(ACTION_SHATTER, "/app/a");
	cr_assert_eq(ntold, 1, "the repeat is told at once");
	cr_assert_eq(told[0].result, RESULT_BACKING_OFF);
	cr_assert(strstr(told[0].detail, "already under way"), "%s", told[0].detail);
	cr_assert_eq(actor_pending(fx.actor), 2);
	run_until(3);
	cr_assert_eq(told[1].req.kind, ACTION_SHATTER);
	cr_assert(strstr(told[1].detail, "/app/a"), "%s", told[1].detail);
	cr_assert_eq(told[2].req.kind, ACTION_COLLAPSE);
	cr_assert(strstr(told[2].detail, "/app/b"), "the queue kept its own copy of the path: %s",
		  told[2].detail);
}

Test(actor_off_loop, other_kinds_and_refusals_stay_in_the_caller)
{
	submit(ACTION_WARN, "/app/a");
	cr_assert_eq(ntold, 1);
	cr_assert_eq(told[0].result, RESULT_DONE);
	submit(ACTION_SHATTER, "/");
	run_until(2);
	cr_assert_eq(told[1].result, RESULT_ALLOWLISTED, "the gate ran before any child");
}

Test(actor_off_loop, taod_exiting_records_what_waits)
{
	submit(ACTION_SHATTER, "/app/a");
	submit(ACTION_SHATTER, "/app/b");
	offload_stop_all();
	actor_drop_pending(fx.actor);
	cr_assert_eq(ntold, 2);
	cr_assert_eq(told[0].result, RESULT_FAILED);
	cr_assert(strstr(told[0].detail, "stopped (taod exiting)"), "%s", told[0].detail);
	cr_assert_eq(told[1].result, RESULT_FAILED);
	cr_assert(strstr(told[1].detail, "taod exited before"), "%s", told[1].detail);
}
