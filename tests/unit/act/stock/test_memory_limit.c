// SPDX-License-Identifier: GPL-2.0
/*
 * The stock restrict (memory_limit.c) through the actor, on the fixture's
 * cgroup v2 tree: memory.high lowered with the original saved first, put
 * back by grant, by expiry and by the first tick after a start, and left
 * alone when someone else changed it.
 */
#include <criterion/criterion.h>
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../act_fixture.h"
#include "act/gate/audit.h"
#include "act/stock/memory_limit.h"
#include "common/rootfs.h"

#define CG   "/sys/fs/cgroup/app/a/"
#define MIB  (1ULL << 20)
#define HIGH CG "memory.high"

static void setup(void)
{
	fx_setup();
	fx_file(CG "memory.current", "104857600\n"); /* 100 MiB */
	fx_file(HIGH, "max\n");
	fx.cfg.enforce.stock_restrict = 1;
	fx.cfg.enforce.stock_restrict_percent = 50;
	fx.cfg.enforce.stock_restrict_for_ms = 60000;
	snprintf(fx.cfg.enforce.stock_restrict_state, sizeof(fx.cfg.enforce.stock_restrict_state),
		 "%s/state", fx.root);
}

TestSuite(memory_limit, .init = setup, .fini = fx_teardown);

static const char *high(void)
{
	static char text[64];
	char path[PATH_MAX];

	snprintf(path, sizeof(path), "%s%s", fx.root, HIGH);
	cr_assert_geq(read_file(path, text, sizeof(text)), 0);
	text[strcspn(text, "\n")] = '\0';
	return text;
}

/* The state files kept: how many. */
static int saved(void)
{
	char path[PATH_MAX];
	struct dirent *e;
	DIR *d;
	int n = 0;

	snprintf(path, sizeof(path), "%s/state", fx.root);
	d = opendir(path);
	while (d && (e = readdir(d)))
		n += e->d_name[0] != '.';
	if (d)
		closedir(d);
	return n;
}

/* A restrict that ends in @want wrote nothing and saved nothing. */
static void restrict_touches_nothing(enum action_result want)
{
	struct action_record rec;

	fx_open(&backend_stock_ops);
	cr_assert_eq(fx_submit(ACTION_RESTRICT, "/app/a", 0, 0, &rec), want, "%s", rec.detail);
	cr_assert_str_eq(fx.writes, "");
	cr_assert_eq(saved(), 0);
}

Test(memory_limit, memory_limit_restrict_lowers_memory_high_after_saving_it)
{
	struct action_record rec;

	fx_open(&backend_stock_ops);
	actor_tick(fx.actor); /* the first tick: nothing left from before */
	cr_assert_eq(fx_submit(ACTION_RESTRICT, "/app/a", 0, 0, &rec), RESULT_DONE, "%s",
		     rec.detail);
	cr_assert_str_eq(fx.writes, CG "memory.high=52428800\n");
	cr_assert_str_eq(high(), "52428800");
	cr_assert(strstr(rec.detail, "memory.high lowered to 52428800 (50% of 104857600 in use)"),
		  "%s", rec.detail);
	cr_assert(strstr(rec.detail, "was max"), "%s", rec.detail);
	cr_assert_eq(saved(), 1);
}

Test(memory_limit, memory_limit_restrict_keeps_a_lower_limit)
{
	fx_file(HIGH, "10485760\n");
	restrict_touches_nothing(RESULT_NO_GAIN);
}

Test(memory_limit, memory_limit_restrict_keeps_the_first_original)
{
	struct action_record rec;

	fx_open(&backend_stock_ops);
	cr_assert_eq(fx_submit(ACTION_RESTRICT, "/app/a", 0, 0, &rec), RESULT_DONE, "%s",
		     rec.detail);
	fx_file(CG "memory.current", "52428800\n");
	fx_now += 1000;
	cr_assert_eq(fx_submit(ACTION_RESTRICT, "/app/a", 0, 0, &rec), RESULT_DONE, "%s",
		     rec.detail);
	cr_assert_str_eq(high(), "26214400");
	cr_assert_eq(fx_submit(ACTION_GRANT, "/app/a", 0, 0, &rec), RESULT_DONE, "%s", rec.detail);
	cr_assert_str_eq(high(), "max", "the value before the first restrict comes back");
}

Test(memory_limit, memory_limit_grant_puts_the_original_back)
{
	struct action_record rec;

	fx_open(&backend_stock_ops);
	cr_assert_eq(fx_submit(ACTION_RESTRICT, "/app/a", 0, 0, &rec), RESULT_DONE, "%s",
		     rec.detail);
	cr_assert_eq(fx_submit(ACTION_GRANT, "/app/a", 0, 0, &rec), RESULT_DONE, "%s", rec.detail);
	cr_assert_str_eq(high(), "max");
	cr_assert(strstr(rec.detail, "put memory.high back to max"), "%s", rec.detail);
	cr_assert_eq(saved(), 0);
	fx.writes[0] = '\0';
	cr_assert_eq(fx_submit(ACTION_GRANT, "/app/a", 0, 0, &rec), RESULT_DONE, "%s", rec.detail);
	cr_assert(strstr(rec.detail, "nothing to give back"), "%s", rec.detail);
	cr_assert_str_eq(fx.writes, "");
}

Test(memory_limit, memory_limit_grant_leaves_a_value_someone_changed)
{
	struct action_record rec;

	fx_open(&backend_stock_ops);
	cr_assert_eq(fx_submit(ACTION_RESTRICT, "/app/a", 0, 0, &rec), RESULT_DONE, "%s",
		     rec.detail);
	fx_file(HIGH, "20971520\n"); /* the operator's own */
	fx.writes[0] = '\0';
	cr_assert_eq(fx_submit(ACTION_GRANT, "/app/a", 0, 0, &rec), RESULT_DONE, "%s", rec.detail);
	cr_assert_str_eq(high(), "20971520");
	cr_assert_str_eq(fx.writes, "");
	cr_assert(strstr(rec.detail, "changed since"), "%s", rec.detail);
	cr_assert_eq(saved(), 0);
}

Test(memory_limit, memory_limit_expire_puts_back_when_the_time_is_up)
{
	struct action_record rec;
	const struct action_record *last;

	fx_open(&backend_stock_ops);
	actor_tick(fx.actor);
	cr_assert_eq(fx_submit(ACTION_RESTRICT, "/app/a", 0, 0, &rec), RESULT_DONE, "%s",
		     rec.detail);
	fx_now += 59999;
	cr_assert_eq(actor_tick(fx.actor), 0);
	cr_assert_str_eq(high(), "52428800");
	fx_now += 1;
	cr_assert_eq(actor_tick(fx.actor), 1);
	cr_assert_str_eq(high(), "max");
	last = audit_get(actor_audit(fx.actor), 0);
	cr_assert_eq(last->req.kind, ACTION_GRANT);
	cr_assert_str_eq(last->req.policy, "(time up)");
	cr_assert_eq(last->result, RESULT_DONE, "%s", last->detail);
	cr_assert_eq(saved(), 0);
}

/* Between start and the earliest restriction's time, a tick reads no state file. */
Test(memory_limit, memory_limit_expire_reads_the_state_only_when_one_is_due)
{
	struct action_record rec;
	char junk[PATH_MAX];

	fx_open(&backend_stock_ops);
	actor_tick(fx.actor);
	cr_assert_eq(fx_submit(ACTION_RESTRICT, "/app/a", 0, 0, &rec), RESULT_DONE, "%s",
		     rec.detail);
	/* A file the next read of the directory would find, and remove. */
	snprintf(junk, sizeof(junk), "%s/state/999", fx.root);
	fx_file(junk + strlen(fx.root), "not taod's\n");
	fx_now += 30000;
	cr_assert_eq(actor_tick(fx.actor), 0);
	cr_assert_eq(access(junk, F_OK), 0, "the directory was read before anything was due");
	fx_now += 30000;
	cr_assert_eq(actor_tick(fx.actor), 1);
	cr_assert_neq(access(junk, F_OK), 0);
	cr_assert_str_eq(high(), "max");
}

Test(memory_limit, memory_limit_expire_all_at_the_first_tick_after_a_start)
{
	struct action_record rec;

	fx_open(&backend_stock_ops);
	cr_assert_eq(fx_submit(ACTION_RESTRICT, "/app/a", 0, 0, &rec), RESULT_DONE, "%s",
		     rec.detail);
	/* A crash: the actor is gone without putting anything back. */
	actor_close(fx.actor);
	cr_assert_str_eq(high(), "52428800");
	fx_open(&backend_stock_ops);
	cr_assert_eq(actor_tick(fx.actor), 1);
	cr_assert_str_eq(high(), "max");
	cr_assert_str_eq(audit_get(actor_audit(fx.actor), 0)->req.policy, "(taod start or exit)");
	cr_assert_eq(actor_tick(fx.actor), 0);
}

Test(memory_limit, memory_limit_expire_all_when_taod_exits)
{
	struct action_record rec;

	fx_open(&backend_stock_ops);
	cr_assert_eq(fx_submit(ACTION_RESTRICT, "/app/a", 0, 0, &rec), RESULT_DONE, "%s",
		     rec.detail);
	cr_assert_eq(actor_release(fx.actor), 1);
	cr_assert_str_eq(high(), "max");
}

Test(memory_limit, memory_limit_withheld_unless_turned_on)
{
	struct action_record rec;

	fx.cfg.enforce.stock_restrict = 0;
	fx.cfg.enforce.mode = ACT_MODE_OBSERVE;
	fx_open(&backend_stock_ops);
	cr_assert_eq(fx_submit(ACTION_RESTRICT, "/app/a", 0, 0, &rec), RESULT_UNSUPPORTED);
	cr_assert(strstr(rec.detail, "restrict is off in the stock backend: [enforce] "
				     "stock_restrict = yes"),
		  "%s", rec.detail);
	cr_assert_eq(fx_submit(ACTION_GRANT, "/app/a", 0, 0, &rec), RESULT_UNSUPPORTED);
	/* Only restrict and grant: the stock backend's other levers stay. */
	cr_assert_eq(fx_submit(ACTION_SHATTER, "/app/a", 0, 0, &rec), RESULT_DRY_RUN);
	cr_assert_str_eq(fx.writes, "");
}

Test(memory_limit, memory_limit_restrict_in_observe_mode_writes_nothing)
{
	fx.cfg.enforce.mode = ACT_MODE_OBSERVE;
	restrict_touches_nothing(RESULT_DRY_RUN);
}

Test(memory_limit, memory_limit_restrict_write_failure_keeps_no_state)
{
	struct action_record rec;

	fx_open(&backend_stock_ops);
	fx_fail(HIGH, EACCES);
	cr_assert_eq(fx_submit(ACTION_RESTRICT, "/app/a", 0, 0, &rec), RESULT_FAILED, "%s",
		     rec.detail);
	cr_assert_str_eq(high(), "max");
	cr_assert_eq(saved(), 0);
}
