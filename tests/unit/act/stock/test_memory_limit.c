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

/* memory.high of the cgroup whose directory is @cg, as read. */
static const char *high_of(const char *cg)
{
	static char text[64];
	char path[PATH_MAX];

	snprintf(path, sizeof(path), "%s/sys/fs/cgroup%s/memory.high", fx.root, cg);
	cr_assert_geq(read_file(path, text, sizeof(text)), 0);
	text[strcspn(text, "\n")] = '\0';
	return text;
}

static const char *high(void)
{
	return high_of("/app/a");
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

/* A restrict of @cg that lowered its limit. */
static void restrict_done(const char *cg)
{
	struct action_record rec;

	cr_assert_eq(fx_submit(ACTION_RESTRICT, cg, 0, 0, &rec), RESULT_DONE, "%s", rec.detail);
}

/* The admin's own value set between two restricts is what grant puts back. */
Test(memory_limit, memory_limit_restrict_again_after_an_admin_change_keeps_theirs)
{
	struct action_record rec;

	fx_open(&backend_stock_ops);
	restrict_done("/app/a");
	fx_file(HIGH, "83886080\n"); /* the admin's 80 MiB */
	fx_now += 1000;
	cr_assert_eq(fx_submit(ACTION_RESTRICT, "/app/a", 0, 0, &rec), RESULT_DONE, "%s",
		     rec.detail);
	cr_assert_str_eq(high(), "52428800");
	cr_assert(strstr(rec.detail, "was 83886080"), "%s", rec.detail);
	cr_assert_eq(fx_submit(ACTION_GRANT, "/app/a", 0, 0, &rec), RESULT_DONE, "%s", rec.detail);
	cr_assert_str_eq(high(), "83886080", "the admin's value, not the one before it");
}

/* Renames the fixture's cgroup /app/a to /app/r: on v1 it keeps its inode. */
static void rename_a_to_r(void)
{
	char from[PATH_MAX], to[PATH_MAX];

	snprintf(from, sizeof(from), "%s/sys/fs/cgroup/app/a", fx.root);
	snprintf(to, sizeof(to), "%s/sys/fs/cgroup/app/r", fx.root);
	cr_assert_eq(rename(from, to), 0);
}

/* The cgroup walk's answer: every id is /app/r now. */
static const char *walk_says_r(void *ctx, uint64_t id)
{
	(void)ctx;
	(void)id;
	return "/app/r";
}

Test(memory_limit, memory_limit_expire_puts_back_a_renamed_cgroup)
{

	fx_open(&backend_stock_ops);
	actor_set_cgroup_paths(fx.actor, walk_says_r, NULL);
	actor_tick(fx.actor);
	restrict_done("/app/a");
	rename_a_to_r();
	fx_now += 60000;
	cr_assert_eq(actor_tick(fx.actor), 1);
	cr_assert_str_eq(high_of("/app/r"), "max", "%s",
			 audit_get(actor_audit(fx.actor), 0)->detail);
	cr_assert_eq(saved(), 0);
}

Test(memory_limit, memory_limit_grant_and_restrict_follow_a_rename)
{
	struct action_record rec;

	fx_open(&backend_stock_ops);
	restrict_done("/app/a");
	rename_a_to_r();
	fx_file("/sys/fs/cgroup/app/r/memory.current", "52428800\n");
	fx_now += 1000;
	restrict_done("/app/r");
	cr_assert_str_eq(high_of("/app/r"), "26214400");
	cr_assert_eq(fx_submit(ACTION_GRANT, "/app/r", 0, 0, &rec), RESULT_DONE, "%s", rec.detail);
	cr_assert_str_eq(high_of("/app/r"), "max", "%s", rec.detail);
}

/* A state file saying what taod never writes: @field's line replaced by @line. */
static void tamper(const char *field, const char *line)
{
	char path[PATH_MAX], name[32], *text, *at, *end, out[PATH_MAX * 2];
	struct dirent *e;
	DIR *d;

	snprintf(path, sizeof(path), "%s/state", fx.root);
	d = opendir(path);
	cr_assert_not_null(d);
	while ((e = readdir(d)) && e->d_name[0] == '.')
		;
	cr_assert_not_null(e);
	snprintf(name, sizeof(name), "%s", e->d_name);
	closedir(d);
	snprintf(path, sizeof(path), "%s/state/%s", fx.root, name);
	text = scratch_read(path);
	at = strstr(text, field);
	cr_assert_not_null(at);
	end = at + strcspn(at, "\n");
	snprintf(out, sizeof(out), "%.*s%s%s", (int)(at - text), text, line, end);
	free(text);
	unlink(path);
	snprintf(path, sizeof(path), "/state/%s", name);
	fx_file(path, out);
	snprintf(path, sizeof(path), "%s/state/%s", fx.root, name);
	chmod(path, 0600);
}

/* The put-back at the next start writes nothing a tampered state names. */
static void put_back_refused(const char *field, const char *line)
{
	char victim[PATH_MAX];

	fx_file("/sys/fs/cgroup/app/victim", "precious\n");
	fx_open(&backend_stock_ops);
	restrict_done("/app/a");
	tamper(field, line);
	actor_close(fx.actor);
	fx_open(&backend_stock_ops);
	fx.writes[0] = '\0';
	cr_assert_eq(actor_tick(fx.actor), 0);
	cr_assert_str_eq(fx.writes, "", "a tampered state was acted on");
	snprintf(victim, sizeof(victim), "%s/sys/fs/cgroup/app/victim", fx.root);
	cr_assert_str_eq(scratch_read(victim), "precious\n");
	cr_assert_eq(saved(), 0, "the tampered state is removed");
}

Test(memory_limit, memory_limit_state_file_field_is_not_a_path)
{
	put_back_refused("file=", "file=../victim");
}

Test(memory_limit, memory_limit_state_original_is_max_or_a_number)
{
	put_back_refused("original=", "original=-1");
}

Test(memory_limit, memory_limit_state_cgroup_is_canonical)
{
	put_back_refused("cgroup=", "cgroup=/app/a/../a");
}

/* A state directory others can write to is not read, nor written to. */
Test(memory_limit, memory_limit_state_directory_others_own_is_refused)
{
	struct action_record rec;
	char dir[PATH_MAX];

	fx_open(&backend_stock_ops);
	restrict_done("/app/a");
	snprintf(dir, sizeof(dir), "%s/state", fx.root);
	cr_assert_eq(chmod(dir, 0777), 0);
	actor_close(fx.actor);
	fx_open(&backend_stock_ops);
	fx.writes[0] = '\0';
	cr_assert_eq(actor_tick(fx.actor), 0);
	cr_assert_str_eq(fx.writes, "", "a state from a directory anyone writes was acted on");
	fx_file(HIGH, "max\n");
	cr_assert_eq(fx_submit(ACTION_RESTRICT, "/app/a", 0, 0, &rec), RESULT_FAILED, "%s",
		     rec.detail);
	cr_assert(strstr(rec.detail, "writable by others"), "%s", rec.detail);
	cr_assert_str_eq(high(), "max");
}

/* The actor's state directory is now @name under the root, restrictions last @ms. */
static void state_in(const char *name, uint64_t ms)
{
	snprintf(fx.cfg.enforce.stock_restrict_state, sizeof(fx.cfg.enforce.stock_restrict_state),
		 "%s/%s", fx.root, name);
	fx.cfg.enforce.stock_restrict_for_ms = ms;
	actor_set_settings(fx.actor, &fx.cfg.enforce, &fx.cfg.k);
}

/* The next-due time learnt from one directory does not keep another unread. */
Test(memory_limit, memory_limit_expire_reads_a_directory_the_due_time_is_not_from)
{

	fx_file("/sys/fs/cgroup/app/c/memory.current", "104857600\n");
	fx_file("/sys/fs/cgroup/app/c/memory.high", "max\n");
	fx_open(&backend_stock_ops);
	state_in("b", 1000);
	actor_tick(fx.actor);
	restrict_done("/app/c");
	state_in("a", 60000);
	actor_tick(fx.actor);
	restrict_done("/app/a");
	fx_now += 2000;
	cr_assert_eq(actor_tick(fx.actor), 0);
	state_in("b", 1000);
	cr_assert_eq(actor_tick(fx.actor), 1, "b's restriction, due, was not read");
	cr_assert_str_eq(high_of("/app/c"), "max");
}
