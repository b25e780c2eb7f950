// SPDX-License-Identifier: GPL-2.0
/* The safety gate and the backends' exact writes, on a fixture TAO kernel. */
#include <criterion/criterion.h>
#include <errno.h>
#include <fcntl.h>
#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <limits.h>
#include <unistd.h>

#include "act/read/smaps.h"
#include "act/read/proc_tasks.h"
#include "../act_fixture.h"
#include "act/gate/audit.h"
#include "common/cgroup_dir.h"
#include "common/rootfs.h"

#define CG    "/sys/fs/cgroup/app/a/"
#define SPLIT "/sys/kernel/debug/split_huge_pages"

TestSuite(act_gate, .init = fx_setup, .fini = fx_teardown);

Test(act_gate, tao_shatter_writes_the_budget)
{
	struct action_record rec;

	fx_open(&backend_tao_ops);
	cr_assert_eq(fx_submit(ACTION_SHATTER, "/app/a", FIX_PID, 1 << 20, &rec), RESULT_DONE);
	cr_assert_str_eq(fx.writes, CG "memory.thp_shatter=1048576\n");
	cr_assert_eq(rec.err, 0);
}

Test(act_gate, tao_shatter_eagain_is_partial_not_failure)
{
	struct action_record rec;

	fx_open(&backend_tao_ops);
	fx_fail(CG "memory.thp_shatter", EAGAIN);
	cr_assert_eq(fx_submit(ACTION_SHATTER, "/app/a", 0, 4 << 20, &rec), RESULT_DONE);
	cr_assert_eq(rec.err, EAGAIN);
	cr_assert(strstr(rec.detail, "partial"), "%s", rec.detail);
	/* Not a failure, so no back-off: the next one goes through. */
	cr_assert_eq(fx_submit(ACTION_SHATTER, "/app/a", 0, 4 << 20, &rec), RESULT_DONE);
	cr_assert_eq(fx.fail_count, 2);
}

Test(act_gate, restrict_then_grant_through_thp_zones)
{
	struct action_record rec;

	fx_open(&backend_tao_ops);
	cr_assert_eq(fx_submit(ACTION_GRANT, "/app/a", 0, 0, &rec), RESULT_DONE);
	cr_assert_str_eq(fx.writes, ""); /* already both zones */
	cr_assert_eq(fx_submit(ACTION_RESTRICT, "/app/a", 0, 0, &rec), RESULT_DONE);
	cr_assert_eq(fx_submit(ACTION_GRANT, "/app/a", 0, 0, &rec), RESULT_DONE);
	cr_assert_str_eq(fx.writes,
			 CG "memory.thp_zones=\n\n" CG "memory.thp_zones=nosplit nomerge\n");
}

Test(act_gate, failed_write_is_recorded_and_backs_off_exponentially)
{
	struct action_record rec;

	fx_open(&backend_tao_ops);
	fx_fail(CG "memory.thp_zones", EINVAL);
	cr_assert_eq(fx_submit(ACTION_RESTRICT, "/app/a", 0, 0, &rec), RESULT_FAILED);
	cr_assert_eq(rec.err, EINVAL);
	cr_assert_eq(fx_submit(ACTION_RESTRICT, "/app/a", 0, 0, &rec), RESULT_BACKING_OFF);
	/* Other kinds and cgroups are not held back by it. */
	cr_assert_eq(fx_submit(ACTION_RESTRICT, "/app/b", 0, 0, &rec), RESULT_DONE);
	fx_now += 10001;
	cr_assert_eq(fx_submit(ACTION_RESTRICT, "/app/a", 0, 0, &rec), RESULT_FAILED);
	fx_now += 10001; /* the second failure waits 20 s */
	cr_assert_eq(fx_submit(ACTION_RESTRICT, "/app/a", 0, 0, &rec), RESULT_BACKING_OFF);
	fx_now += 10001;
	fx.fail_path[0] = '\0';
	cr_assert_eq(fx_submit(ACTION_RESTRICT, "/app/a", 0, 0, &rec), RESULT_DONE);
	cr_assert_eq(fx.fail_count, 2);
}

Test(act_gate, actions_per_minute_limit)
{
	struct action_record rec;

	fx.cfg.enforce.actions_per_minute = 3;
	fx_open(&backend_tao_ops);
	for (int i = 0; i < 3; i++)
		cr_assert_eq(fx_submit(ACTION_SHATTER, "/app/a", 0, 4096, &rec), RESULT_DONE);
	cr_assert_eq(fx_submit(ACTION_SHATTER, "/app/a", 0, 4096, &rec), RESULT_RATE_LIMITED);
	cr_assert_str_eq(fx.writes, CG "memory.thp_shatter=4096\n" CG "memory.thp_shatter=4096\n" CG
				       "memory.thp_shatter=4096\n");
	fx_now += 20000; /* a third of a minute: one token back */
	cr_assert_eq(fx_submit(ACTION_SHATTER, "/app/a", 0, 4096, &rec), RESULT_DONE);
	cr_assert_eq(fx_submit(ACTION_SHATTER, "/app/a", 0, 4096, &rec), RESULT_RATE_LIMITED);
}

Test(act_gate, shatter_bytes_per_minute_budget)
{
	struct action_record rec;

	fx.cfg.enforce.shatter_bytes_per_minute = 3 << 20;
	fx_open(&backend_tao_ops);
	cr_assert_eq(fx_submit(ACTION_SHATTER, "/app/a", 0, 2 << 20, &rec), RESULT_DONE);
	cr_assert_eq(fx_submit(ACTION_SHATTER, "/app/a", 0, 2 << 20, &rec), RESULT_DONE);
	cr_assert_eq(fx_submit(ACTION_SHATTER, "/app/a", 0, 2 << 20, &rec), RESULT_RATE_LIMITED);
	/* The second one only got what was left of the minute's bytes. */
	cr_assert_str_eq(fx.writes,
			 CG "memory.thp_shatter=2097152\n" CG "memory.thp_shatter=1048576\n");
	/* Restrict moves no bytes: still allowed. */
	cr_assert_eq(fx_submit(ACTION_RESTRICT, "/app/a", 0, 0, &rec), RESULT_DONE);
}

static void dry_run_writes_nothing(const struct act_backend_ops *be)
{
	struct action_record rec;
	char *before = fx_snapshot(), *after;
	enum action_kind kinds[] = {ACTION_WARN,    ACTION_RESTRICT, ACTION_GRANT,
				    ACTION_SHATTER, ACTION_COLLAPSE, ACTION_RESIZE_ZONES};

	fx_open(be);
	for (size_t i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++) {
		enum action_result r = fx_submit(kinds[i], "/app/a", FIX_PID, 8 << 20, &rec);

		/* A warning only logs, which the dry-run backend does too. */
		if (kinds[i] == ACTION_WARN && be == &backend_dry_run_ops) {
			cr_assert_eq(r, RESULT_DONE);
			continue;
		}
		cr_assert_eq(r, RESULT_DRY_RUN, "%s: %s", action_kind_name(kinds[i]), rec.detail);
		cr_assert(strstr(rec.detail, "would"), "%s", rec.detail);
		/* Nothing done: nothing costed, so no benefit follow-up either. */
		cr_assert_not(rec.cost.measured, "%s", action_kind_name(kinds[i]));
	}
	after = fx_snapshot();
	cr_assert_str_eq(fx.writes, "");
	cr_assert_str_eq(before, after);
	free(before);
	free(after);
}

Test(act_gate, observe_mode_writes_nothing)
{
	fx.cfg.enforce.mode = ACT_MODE_OBSERVE;
	dry_run_writes_nothing(&backend_tao_ops);
}

Test(act_gate, dry_run_backend_writes_nothing)
{
	dry_run_writes_nothing(&backend_dry_run_ops);
}

Test(act_gate, policy_dry_run_writes_nothing)
{
	struct action_request r = fx_req(ACTION_SHATTER, "/app/a", 0, 1 << 20);
	struct action_record rec;

	fx_open(&backend_tao_ops);
	r.dry_run = true;
	cr_assert_eq(actor_submit(fx.actor, &r, &rec), RESULT_DRY_RUN);
	cr_assert(strstr(rec.detail, "policy dry-run"), "%s", rec.detail);
	cr_assert_str_eq(fx.writes, "");
}

/* taoctl act --dry-run is the operator's, not a policy's. */
Test(act_gate, an_asked_dry_run_says_so)
{
	struct action_request r = fx_req(ACTION_SHATTER, "/app/a", 0, 1 << 20);
	struct action_record rec;

	fx_open(&backend_tao_ops);
	r.dry_run = r.asked = true;
	cr_assert_eq(actor_submit(fx.actor, &r, &rec), RESULT_DRY_RUN);
	cr_assert(strstr(rec.detail, "dry-run (asked): would shatter /app/a"), "%s", rec.detail);
	cr_assert_null(strstr(rec.detail, "policy"), "%s", rec.detail);
}

Test(act_gate, root_self_and_allowlist_are_refused)
{
	struct action_record rec;

	snprintf(fx.cfg.enforce.allowlist, sizeof(fx.cfg.enforce.allowlist),
		 "/system.slice/* /app/b");
	fx_file("/sys/fs/cgroup/system.slice/sshd.service/memory.thp_zones", "nosplit nomerge\n");
	fx_open(&backend_tao_ops);
	cr_assert_eq(fx_submit(ACTION_SHATTER, "/", 0, 4096, &rec), RESULT_ALLOWLISTED);
	cr_assert_eq(fx_submit(ACTION_SHATTER, "/taod.service", 0, 4096, &rec), RESULT_ALLOWLISTED);
	cr_assert_eq(fx_submit(ACTION_RESTRICT, "/app/b", 0, 0, &rec), RESULT_ALLOWLISTED);
	cr_assert(strstr(rec.detail, "\"/app/b\""), "%s", rec.detail);
	cr_assert_eq(fx_submit(ACTION_RESTRICT, "/system.slice/sshd.service", 0, 0, &rec),
		     RESULT_ALLOWLISTED);
	cr_assert_str_eq(fx.writes, "");
	cr_assert_eq(fx_submit(ACTION_RESTRICT, "/app/a", 0, 0, &rec), RESULT_DONE);
}

/* A restrict of @cg is refused as allowlisted, its detail holding @why. */
static void assert_allowlisted(const char *cg, const char *why)
{
	struct action_record rec;

	cr_assert_eq(fx_submit(ACTION_RESTRICT, cg, 0, 0, &rec), RESULT_ALLOWLISTED, "%s", cg);
	cr_assert(strstr(rec.detail, why), "%s: %s", cg, rec.detail);
}

/* A glob protects what it matches and everything below; "=GLOB" the match alone. */
Test(act_gate, allowlist_glob_protects_the_subtree_and_eq_the_cgroup_alone)
{
	struct action_record rec;

	snprintf(fx.cfg.enforce.allowlist, sizeof(fx.cfg.enforce.allowlist), "/ap? =/app/b");
	fx_file("/sys/fs/cgroup/app/a/c/memory.thp_zones", "nosplit nomerge\n");
	fx_file("/sys/fs/cgroup/app/b/c/memory.thp_zones", "nosplit nomerge\n");
	fx_file("/sys/fs/cgroup/app/b/memory.thp_zones", "nosplit nomerge\n");
	fx_open(&backend_tao_ops);
	assert_allowlisted("/app/a", "\"/ap?\" (subtree of /app)");
	assert_allowlisted("/app/a/c", "\"/ap?\" (subtree of /app)");

	actor_close(fx.actor);
	snprintf(fx.cfg.enforce.allowlist, sizeof(fx.cfg.enforce.allowlist), "=/app/b /app/a");
	fx_open(&backend_tao_ops);
	assert_allowlisted("/app/b", "\"=/app/b\" (exact)");
	assert_allowlisted("/app/a", "\"/app/a\" (the cgroup)");
	cr_assert_str_eq(fx.writes, "");
	cr_assert_eq(fx_submit(ACTION_RESTRICT, "/app/b/c", 0, 0, &rec), RESULT_DONE, "%s",
		     rec.detail);
	cr_assert_str_eq(fx.writes, "/sys/fs/cgroup/app/b/c/memory.thp_zones=\n\n");
}

/* The kernel allows any byte but '/' in a cgroup name; the gate acts on it. */
Test(act_gate, a_cgroup_named_with_control_characters_is_acted_on)
{
	struct action_record rec;

	fx_file("/sys/fs/cgroup/app/t\tab\x1b[31m/memory.thp_shatter", "");
	fx_open(&backend_tao_ops);
	cr_assert_eq(fx_submit(ACTION_SHATTER, "/app/t\tab\x1b[31m", 0, 4096, &rec), RESULT_DONE,
		     "%s", rec.detail);
	cr_assert_str_eq(fx.writes, "/sys/fs/cgroup/app/t\tab\x1b[31m/memory.thp_shatter=4096\n");
}

/* Where taod's own cgroup cannot be named, any cgroup might hold it. */
Test(act_gate, nothing_is_acted_on_when_taods_own_cgroup_is_unknown)
{
	struct action_record rec;

	fx.tree.self_unknown = true;
	fx_open(&backend_tao_ops);
	cr_assert_eq(fx_submit(ACTION_SHATTER, "/app/a", 0, 4096, &rec), RESULT_ALLOWLISTED);
	cr_assert(strstr(rec.detail, "taod's own cgroup"), "%s", rec.detail);
	cr_assert_str_eq(fx.writes, "");
}

/* Aliases of root, self or an allowlisted cgroup never reach a backend. */
Test(act_gate, path_aliases_are_refused)
{
	const char *aliases[] = {"/.",	    "//",	"/taod.service/", "//taod.service",
				 "/app//b", "/app/./b", "/app/b/",	  "/app/a/../b"};
	struct action_record rec;

	snprintf(fx.cfg.enforce.allowlist, sizeof(fx.cfg.enforce.allowlist), "/app/b");
	fx_file("/sys/fs/cgroup/app/b/memory.thp_zones", "nosplit nomerge\n");
	fx_open(&backend_tao_ops);
	for (size_t i = 0; i < sizeof(aliases) / sizeof(aliases[0]); i++) {
		cr_assert_eq(fx_submit(ACTION_RESTRICT, aliases[i], 0, 0, &rec), RESULT_VANISHED,
			     "%s", aliases[i]);
		cr_assert(strstr(rec.detail, "not a cgroup path"), "%s", rec.detail);
	}
	cr_assert_str_eq(fx.writes, "");
}

Test(act_gate, a_cgroup_made_again_under_the_judged_path_is_not_acted_on)
{
	struct action_request r = fx_req(ACTION_RESTRICT, "/app/a", 0, 0);
	struct action_record rec;
	char *dir;
	struct stat st;

	fx_open(&backend_tao_ops);
	dir = cgroup_file_shown(&fx.tree, "/app/a", NULL);
	cr_assert_eq(stat(dir, &st), 0);
	free(dir);
	r.cgroup_id = (uint64_t)st.st_ino + 1;
	cr_assert_eq(actor_submit(fx.actor, &r, &rec), RESULT_VANISHED);
	cr_assert_eq(rec.err, ESTALE);
	cr_assert_str_eq(fx.writes, "");
	r.cgroup_id = (uint64_t)st.st_ino;
	cr_assert_eq(actor_submit(fx.actor, &r, &rec), RESULT_DONE);
}

Test(act_gate, ancestors_of_taod_are_refused)
{
	struct action_record rec;

	snprintf(fx.tree.self, sizeof(fx.tree.self), "/app/a/taod");
	fx_file("/sys/fs/cgroup/app/a/taod/cgroup.procs", "77\n");
	fx_open(&backend_tao_ops);
	cr_assert_eq(fx_submit(ACTION_SHATTER, "/app/a", 0, 4096, &rec), RESULT_ALLOWLISTED);
	cr_assert_eq(fx_submit(ACTION_SHATTER, "/app", 0, 4096, &rec), RESULT_ALLOWLISTED);
	cr_assert_eq(fx_submit(ACTION_SHATTER, "/app/b", 0, 4096, &rec), RESULT_DONE);
}

Test(act_gate, vanished_cgroup_and_task)
{
	struct action_record rec;

	fx_open(&backend_tao_ops);
	cr_assert_eq(fx_submit(ACTION_SHATTER, "/app/gone", 0, 4096, &rec), RESULT_VANISHED);
	cr_assert_eq(fx_submit(ACTION_SHATTER, "/app/a", 999999, 4096, &rec), RESULT_VANISHED);
	/* A task that moved to another cgroup is not acted on in this one. */
	cr_assert_eq(fx_submit(ACTION_SHATTER, "/app/b", FIX_PID, 4096, &rec), RESULT_VANISHED);
	cr_assert(strstr(rec.detail, "no longer in /app/b"), "%s", rec.detail);
	cr_assert_eq(fx_submit(ACTION_SHATTER, "/app/../etc", 0, 4096, &rec), RESULT_VANISHED);
	cr_assert_str_eq(fx.writes, "");
}

/* Issue 26 item 3: a tenant that shut down (no task, no anon memory) is
 * not warned, shattered or restricted on decide's word, and the record
 * says why; a task left in it lets the action through; a grant always
 * puts back what was taken, and an operator's request is carried out. */
Test(act_gate, a_tenant_with_no_task_and_no_anon_memory_is_not_acted_on)
{
	static const enum action_kind refused[] = {ACTION_WARN, ACTION_SHATTER, ACTION_RESTRICT};
	struct action_record rec;
	struct action_request req;
	char why[160];

	fx_file("/sys/fs/cgroup/app/b/memory.stat", "anon 0\nanon_thp 0\n");
	fx_file("/sys/fs/cgroup/app/b/cgroup.procs", "");
	fx_open(&backend_tao_ops);
	for (size_t i = 0; i < sizeof(refused) / sizeof(refused[0]); i++) {
		cr_assert_eq(fx_submit(refused[i], "/app/b", 0, 4096, &rec), RESULT_VANISHED);
		snprintf(why, sizeof(why),
			 "/app/b holds no task and no anon memory (it shut down): nothing to %s",
			 action_kind_name(refused[i]));
		cr_assert(strstr(rec.detail, why), "%s", rec.detail);
	}
	cr_assert_str_eq(fx.writes, "");
	cr_assert_neq(fx_submit(ACTION_GRANT, "/app/b", 0, 0, &rec), RESULT_VANISHED);
	req = fx_req(ACTION_WARN, "/app/b", 0, 0);
	req.asked = true; /* taoctl act: the operator's to ask */
	cr_assert_eq(actor_submit(fx.actor, &req, &rec), RESULT_DONE, "%s", rec.detail);
	fx_file("/sys/fs/cgroup/app/b/cgroup.procs", "4243\n"); /* moved in, memory left behind */
	cr_assert_eq(fx_submit(ACTION_WARN, "/app/b", 0, 0, &rec), RESULT_DONE, "%s", rec.detail);
}

Test(act_gate, stock_shatter_splits_the_ranges_holding_thps)
{
	struct action_record rec;

	fx_open(&backend_stock_ops);
	cr_assert_eq(fx_submit(ACTION_SHATTER, "/app/a", FIX_PID, 0, &rec), RESULT_DONE, "%s",
		     rec.detail);
	cr_assert_str_eq(fx.writes, SPLIT "=4242,0x7f0000000000,0x7f0000400000\n" SPLIT
					  "=4242,0x7f1000000000,0x7f1000800000\n");
}

Test(act_gate, stock_shatter_stops_at_the_byte_budget)
{
	struct action_record rec;

	fx_open(&backend_stock_ops);
	/* debugfs splits all it is given: only 2 MiB of the 4 MiB mapping is named. */
	cr_assert_eq(fx_submit(ACTION_SHATTER, "/app/a", FIX_PID, 2 << 20, &rec), RESULT_DONE);
	cr_assert_str_eq(fx.writes, SPLIT "=4242,0x7f0000000000,0x7f0000200000\n");
	fx.writes[0] = '\0';
	fx_task_smaps(); /* the same THPs again */
	cr_assert_eq(fx_submit(ACTION_SHATTER, "/app/a", FIX_PID, 7 << 20, &rec), RESULT_DONE);
	cr_assert_str_eq(fx.writes, SPLIT "=4242,0x7f0000000000,0x7f0000400000\n" SPLIT
					  "=4242,0x7f1000000000,0x7f1000200000\n");
	cr_assert(strstr(rec.detail, "6291456 bytes"), "%s", rec.detail);
	/* Less than one THP left: nothing is split rather than too much. */
	fx.writes[0] = '\0';
	cr_assert_eq(fx_submit(ACTION_SHATTER, "/app/a", FIX_PID, 1 << 20, &rec), RESULT_NO_GAIN);
	cr_assert_str_eq(fx.writes, "");
}

Test(act_gate, stock_shatter_of_a_cgroup_reads_its_tasks)
{
	struct action_record rec;

	fx_open(&backend_stock_ops);
	cr_assert_eq(fx_submit(ACTION_SHATTER, "/app/a", 0, 0, &rec), RESULT_DONE);
	cr_assert(strstr(fx.writes, "=4242,0x7f0000000000"), "%s", fx.writes);
}

/* cgroup.procs is read before acting: a task listed there that has since
 * moved (or a reused pid now elsewhere) is checked again and left alone. */
Test(act_gate, stock_shatter_rechecks_each_listed_task)
{
	struct action_record rec;

	fx_file("/sys/fs/cgroup/app/b/cgroup.procs", "4242\n"); /* 4242 is in /app/a */
	fx_open(&backend_stock_ops);
	cr_assert_eq(fx_submit(ACTION_SHATTER, "/app/b", 0, 0, &rec), RESULT_NO_GAIN, "%s",
		     rec.detail);
	cr_assert_str_eq(fx.writes, "");
	cr_assert(strstr(rec.detail, "split no THP of 0 task(s)"), "%s", rec.detail);
}

Test(act_gate, stock_has_no_zone_levers)
{
	struct action_record rec;

	fx_open(&backend_stock_ops);
	cr_assert_eq(fx_submit(ACTION_RESTRICT, "/app/a", 0, 0, &rec), RESULT_UNSUPPORTED);
	cr_assert_eq(fx_submit(ACTION_GRANT, "/app/a", 0, 0, &rec), RESULT_UNSUPPORTED);
	cr_assert_str_eq(fx.writes, "");
}

/* Observe mode or a dry run on a stock kernel: unsupported, not "would resize". */
Test(act_gate, stock_zone_levers_unsupported_in_a_dry_run_too)
{
	struct action_record rec;
	struct action_request r = fx_req(ACTION_RESIZE_ZONES, NULL, 0, 0);

	fx.cfg.enforce.mode = ACT_MODE_OBSERVE;
	fx_open(&backend_stock_ops);
	cr_assert_eq(actor_submit(fx.actor, &r, &rec), RESULT_UNSUPPORTED, "%s", rec.detail);
	cr_assert(strstr(rec.detail, "resize-zones needs the TAO kernel's policy zones"), "%s",
		  rec.detail);
	cr_assert_eq(fx_submit(ACTION_RESTRICT, "/app/a", 0, 0, &rec), RESULT_UNSUPPORTED);
	cr_assert_eq(fx_submit(ACTION_SHATTER, "/app/a", 0, 0, &rec), RESULT_DRY_RUN);
	cr_assert_str_eq(fx.writes, "");
}

static int collect_vma(void *ctx, const struct vma_info *v)
{
	struct vma_info *out = ctx;
	int i = 0;

	while (out[i].end)
		i++;
	out[i] = *v;
	return 0;
}

Test(act_gate, smaps_fields)
{
	struct vma_info v[8] = {0};
	char path[PATH_MAX];

	rootfs_path(path, sizeof(path), "/proc/4242/smaps");
	cr_assert_eq(smaps_scan(path, collect_vma, v), 0);
	cr_assert_eq(v[0].start, 0x55d0c0000000ULL);
	cr_assert(v[0].anon_mapping && !v[0].no_hugepage);
	cr_assert_eq(v[1].anon_huge, 4ULL << 20);
	cr_assert(v[1].anon_mapping);
	cr_assert_eq(v[2].anon, 8ULL << 20);
	cr_assert_eq(v[2].anon_huge, 2ULL << 20);
	cr_assert(!v[2].no_hugepage, "hg is not nh");
	cr_assert(v[3].no_hugepage && v[3].anon_mapping);
	cr_assert(!v[4].anon_mapping);
	cr_assert_eq(v[5].end, 0);
}

static int count_lines(const char *path)
{
	char text[65536];
	int n = 0;

	cr_assert_gt(read_file(path, text, sizeof(text)), 0);
	for (char *p = text; (p = strchr(p, '\n')); p++)
		n++;
	return n;
}

Test(act_gate, every_request_is_audited)
{
	struct action_record rec;
	struct audit_log *log;
	struct json_object *o;
	char first[4096];
	FILE *f;

	fx.cfg.enforce.actions_per_minute = 1;
	fx_open(&backend_tao_ops);
	fx_submit(ACTION_SHATTER, "/app/a", FIX_PID, 4096, &rec); /* done */
	fx_submit(ACTION_SHATTER, "/app/a", FIX_PID, 4096, &rec); /* rate-limited */
	fx_submit(ACTION_SHATTER, "/", 0, 4096, &rec);		  /* allowlisted */
	fx_submit(ACTION_SHATTER, "/app/gone", 0, 4096, &rec);	  /* vanished */
	log = actor_audit(fx.actor);
	cr_assert_eq(audit_count(log), 4);
	cr_assert_eq(audit_get(log, 0)->result, RESULT_VANISHED);
	cr_assert_eq(audit_get(log, 1)->result, RESULT_ALLOWLISTED);
	cr_assert_eq(audit_get(log, 2)->result, RESULT_RATE_LIMITED);
	cr_assert_eq(audit_get(log, 3)->result, RESULT_DONE);
	cr_assert_eq(audit_get(log, 3)->id, 1);
	cr_assert_eq(count_lines(fx.cfg.enforce.audit_log), 4);
	f = fopen(fx.cfg.enforce.audit_log, "r");
	cr_assert(fgets(first, sizeof(first), f));
	fclose(f);
	o = json_tokener_parse(first);
	cr_assert_not_null(o);
	cr_assert_str_eq(json_object_get_string(json_object_object_get(o, "cgroup")), "/app/a");
	cr_assert_str_eq(json_object_get_string(json_object_object_get(o, "action")), "shatter");
	cr_assert_str_eq(json_object_get_string(json_object_object_get(o, "result")), "done");
	cr_assert_eq(json_object_get_int(json_object_object_get(o, "pid")), FIX_PID);
	cr_assert_str_eq(json_object_get_string(json_object_object_get(o, "evidence")),
			 "split_ratio=0.9 over 60s");
	json_object_put(o);
}

static mode_t mode_of(const char *path)
{
	struct stat st;

	cr_assert_eq(lstat(path, &st), 0, "%s", path);
	return st.st_mode & 07777;
}

/* Every tenant's cgroup names and evidence: root's alone to read. */
Test(act_gate, audit_file_is_private_and_never_follows_a_symlink)
{
	char dir[PATH_MAX], victim[PATH_MAX], text[64] = {0};
	struct action_record rec;

	snprintf(dir, sizeof(dir), "%s/audit", fx.root);
	fx_open(&backend_tao_ops);
	fx_submit(ACTION_WARN, "/app/a", 0, 0, &rec);
	cr_assert_eq(mode_of(fx.cfg.enforce.audit_log), 0600);
	cr_assert_eq(mode_of(dir), 0700);
	actor_close(fx.actor);

	/* A symlink planted at the audit path: the target is never written. */
	snprintf(victim, sizeof(victim), "%s", scratch_write(fx.root, "victim", "precious\n"));
	cr_assert_eq(unlink(fx.cfg.enforce.audit_log), 0);
	cr_assert_eq(symlink(victim, fx.cfg.enforce.audit_log), 0);
	fx_open(&backend_tao_ops);
	fx_submit(ACTION_WARN, "/app/a", 0, 0, &rec);
	cr_assert_eq(audit_count(actor_audit(fx.actor)), 1, "still kept in the ring");
	cr_assert_gt(read_file(victim, text, sizeof(text)), 0);
	cr_assert_str_eq(text, "precious\n");
}

Test(act_gate, tao_counters_and_hvo_savings)
{
	struct act_cgroup_stats cs;
	struct act_stats s;
	char text[4096];

	fx_open(&backend_tao_ops);
	cr_assert_eq(actor_read_stats(fx.actor, &s), 0);
	cr_assert(s.tao);
	cr_assert_eq(s.pgalloc_nosplit, 5120);
	cr_assert_eq(s.thp_shatter_page, 7);
	cr_assert_eq(s.thp_shatter_page_failed, 1);
	cr_assert_eq(s.thp_hvo_page, 10);
	cr_assert_eq(s.hvo_saved_bytes, 10 * 28 * 1024);
	cr_assert_eq(s.nosplit_bytes, 2 * FIX_BLOCK);
	cr_assert_eq(s.nomerge_bytes, 1 * FIX_BLOCK);
	cr_assert_gt(rootfs_read("/sys/fs/cgroup/app/a/memory.stat", text, sizeof(text)), 0);
	act_cgroup_stats_parse(text, &cs);
	cr_assert_eq(cs.thp_split_page, 3);
	cr_assert_eq(cs.nomerge_thp, 20971520);
	cr_assert_eq(cs.hvo_saved_bytes, 10 * 28 * 1024);
}

Test(act_gate, collapse_plans_eligible_base_pages_only)
{
	struct action_record rec;

	/*
	 * The 4 MiB MADV_NOHUGEPAGE range of base pages is left out, and so is
	 * the one all THP. Without pagemap the mapping with base pages goes
	 * whole, in 2 MiB chunks as far as the budget pays for.
	 */
	fx_open(&backend_tao_ops);
	/* Fixture pids are not real processes: planned, never advised. */
	cr_assert_eq(fx_submit(ACTION_COLLAPSE, "/app/a", FIX_PID, 0, &rec), RESULT_FAILED);
	cr_assert_eq(rec.err, EXDEV);
	cr_assert(strstr(rec.detail, "collapsed 0 bytes (THP 6291456 -> 6291456) by MADV_COLLAPSE "
				     "over 1 ranges (8388608 bytes"),
		  "%s", rec.detail);
	fx_now += 11000;
	cr_assert_eq(fx_submit(ACTION_COLLAPSE, "/app/a", FIX_PID, 1 << 20, &rec), RESULT_FAILED);
	cr_assert(strstr(rec.detail, "over 1 ranges (2097152 bytes"), "%s", rec.detail);
	cr_assert_str_eq(fx.writes, "");
}

Test(act_gate, stock_shatter_falls_back_when_debugfs_refuses)
{
	struct action_record rec;

	fx_open(&backend_stock_ops);
	fx_fail(SPLIT, EPERM); /* kernel lockdown */
	cr_assert_eq(fx_submit(ACTION_SHATTER, "/app/a", FIX_PID, 0, &rec), RESULT_FAILED);
	/* One refused write; MADV_PAGEOUT needs the pagemap this fixture lacks
	 * (test_stock_split.c has one). */
	cr_assert_eq(fx.fail_count, 1);
	cr_assert_eq(rec.err, ENODATA, "%s", rec.detail);
}

/* /proc/PID/cgroup longer than taod's buffer: the cut line "0::/app/a" of a
 * task in /app/abc must not say the task is in /app/a. */
Test(act_gate, a_cut_short_proc_cgroup_line_names_no_cgroup)
{
	static char text[8300];
	size_t len = 0;

	while (len < 8191 - strlen("0::/app/a") - 40)
		len += (size_t)snprintf(text + len, sizeof(text) - len, "9:cpu:/%030zu\n", len);
	while (len < 8191 - strlen("0::/app/a"))
		text[len++] = '\n';
	snprintf(text + len, sizeof(text) - len, "0::/app/abc\n");
	fx_file("/proc/4242/cgroup", text);
	cr_assert_not(proc_task_in_cgroup(&fx.tree, FIX_PID, "/app/a"));
	fx_file("/proc/4242/cgroup", "0::/app/a\n");
	cr_assert(proc_task_in_cgroup(&fx.tree, FIX_PID, "/app/a"));
}

#define DEEP_LEVELS 22 /* of 200-byte names: 4422 bytes, past PATH_MAX */

/* The fd of each directory of a chain of DEEP_LEVELS under the fixture's
 * cgroup root (fds[0]), made with mkdirat; its path in @rel. */
static void make_deep_cgroup(int fds[DEEP_LEVELS + 1], char *rel)
{
	char name[201];

	memset(name, 'd', 200);
	name[200] = '\0';
	fds[0] = open(fx.tree.mount, O_RDONLY | O_DIRECTORY);
	rel[0] = '\0';
	for (int i = 0; i < DEEP_LEVELS; i++) {
		cr_assert_eq(mkdirat(fds[i], name, 0755), 0);
		fds[i + 1] = openat(fds[i], name, O_RDONLY | O_DIRECTORY);
		cr_assert_geq(fds[i + 1], 0);
		strcat(rel, "/");
		strcat(rel, name);
	}
}

static void remove_deep_cgroup(int fds[DEEP_LEVELS + 1])
{
	char name[201];

	memset(name, 'd', 200);
	name[200] = '\0';
	unlinkat(fds[DEEP_LEVELS], "cgroup.procs", 0);
	for (int i = DEEP_LEVELS - 1; i >= 0; i--) {
		close(fds[i + 1]);
		unlinkat(fds[i], name, AT_REMOVEDIR);
	}
	close(fds[0]);
}

static void put_procs(int dirfd, const char *text)
{
	int f = openat(dirfd, "cgroup.procs", O_WRONLY | O_CREAT | O_TRUNC, 0644);

	cr_assert_geq(f, 0);
	cr_assert_eq(write(f, text, strlen(text)), (ssize_t)strlen(text));
	close(f);
}

/* /proc/PID/cgroup cuts a path of PATH_MAX or more (v1 prints PATH_MAX - 1
 * bytes of it): the cgroup's own cgroup.procs says whether the task is in it. */
Test(act_gate, a_cgroup_path_cut_by_proc_is_told_by_cgroup_procs)
{
	static char rel[DEEP_LEVELS * 201 + 1], text[PATH_MAX + 16];
	int fds[DEEP_LEVELS + 1];
	bool listed, unlisted;

	make_deep_cgroup(fds, rel);
	snprintf(text, sizeof(text), "0::%.*s\n", PATH_MAX - 1, rel);
	fx_file("/proc/4242/cgroup", text);
	put_procs(fds[DEEP_LEVELS], "77\n4242\n");
	listed = proc_task_in_cgroup(&fx.tree, FIX_PID, rel);
	put_procs(fds[DEEP_LEVELS], "77\n");
	unlisted = proc_task_in_cgroup(&fx.tree, FIX_PID, rel);
	remove_deep_cgroup(fds); /* first: the fixture's teardown cannot reach that deep */
	cr_assert(listed);
	cr_assert_not(unlisted);
}

/* cgroup.procs over the 1 MiB buffer: the pid the buffer cuts is dropped,
 * never read as a shorter pid ("4242" as 42). */
Test(act_gate, cgroup_procs_cut_by_the_buffer_gives_no_partial_pid)
{
	size_t k = ((1 << 20) - 1 - 3 - 2) / 2, len = 0;
	char *text = malloc(3 + 2 * k + 6);
	static pid_t pids[1 << 20];

	len += (size_t)sprintf(text, "77\n");
	for (size_t i = 0; i < k; i++)
		len += (size_t)sprintf(text + len, "0\n");
	sprintf(text + len, "4242\n");
	fx_file(CG "cgroup.procs", text);
	free(text);
	cr_assert_eq(cgroup_read_pids(&fx.tree, "/app/a", pids, 1 << 20), 1);
	cr_assert_eq(pids[0], 77);
}

/* A tenant is its subtree: its task in a child cgroup is split by a
 * shatter of the tenant (decide sends no pid without an offender row). */
static void move_task_to_child(void)
{
	fx_file("/sys/fs/cgroup/app/a/cgroup.procs", "");
	fx_file("/sys/fs/cgroup/app/a/child/cgroup.procs", "4242\n");
	fx_file("/proc/4242/cgroup", "0::/app/a/child\n");
}

Test(act_gate, a_tenants_shatter_reaches_its_child_cgroups)
{
	struct action_record rec;

	move_task_to_child();
	fx_open(&backend_stock_ops);
	cr_assert_eq(fx_submit(ACTION_SHATTER, "/app/a", 0, 0, &rec), RESULT_DONE, "%s",
		     rec.detail);
	cr_assert(strstr(fx.writes, "=4242,0x7f0000000000"), "%s", fx.writes);
	cr_assert(strstr(rec.detail, "of 1 task(s)"), "%s", rec.detail);
}

/* A fruitless try at the whole tenant does not hold back one aimed at a task. */
Test(act_gate, a_tenants_back_off_does_not_block_its_task)
{
	struct action_record rec;

	fx_open(&backend_stock_ops);
	cr_assert_eq(fx_submit(ACTION_SHATTER, "/app/a", 0, 1 << 20, &rec), RESULT_NO_GAIN, "%s",
		     rec.detail);
	cr_assert_eq(fx_submit(ACTION_SHATTER, "/app/a", 0, 0, &rec), RESULT_BACKING_OFF);
	cr_assert_eq(fx_submit(ACTION_SHATTER, "/app/a", FIX_PID, 0, &rec), RESULT_DONE, "%s",
		     rec.detail);
}
