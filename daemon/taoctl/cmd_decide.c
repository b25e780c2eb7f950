// SPDX-License-Identifier: GPL-2.0
/* taoctl policy, abusers, reload: the decide stage's view and its config. */
#include <getopt.h>
#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "client.h"
#include "subcommands.h"
#include "format.h"
#include "workload_column.h"
#include "common/json_fields.h"
#include "common/utf8.h"

/* @sep, then a string of a reply's list, escaped for the terminal. */
static void print_item(const char *sep, struct json_object *s)
{
	fputs(sep, stdout);
	text_fputs(json_object_get_string(s), stdout);
}

static void print_policy(struct json_object *p)
{
	struct json_object *m = jget(p, "match"), *inh = jget(p, "from_default");
	char t[32];

	printf("[policy %s]  (%s)\n", jget_text(p, "name"), jget_text(p, "defined_at"));
	printf("  match              =");
	for (size_t i = 0; i < json_object_array_length(m); i++)
		print_item(" ", json_object_array_get_idx(m, i));
	printf("%s\n",
	       json_object_array_length(m) ? "" : " (every cgroup no other policy matches)");
	printf("  coverage_guarantee = %g%%\n", jget_double(p, "coverage_guarantee"));
	printf("  max_split_ratio    = %g\n", jget_double(p, "max_split_ratio"));
	printf("  min_allocs         = %llu\n", (unsigned long long)jget_u64(p, "min_allocs"));
	printf("  window             = %s\n", fmt_duration(t, sizeof(t), jget_u64(p, "window_ms")));
	printf("  ladder             = %s\n", jget_text(p, "ladder"));
	if (*jget_str(p, "ladder_note"))
		printf("                       (%s)\n", jget_text(p, "ladder_note"));
	printf("  cooldown           = %s\n",
	       fmt_duration(t, sizeof(t), jget_u64(p, "cooldown_ms")));
	printf("  dry_run            = %s\n",
	       json_object_get_boolean(jget(p, "dry_run")) ? "yes" : "no");
	printf("  escalate_after     = %llu\n", (unsigned long long)jget_u64(p, "escalate_after"));
	printf("  relax_after        = %llu\n", (unsigned long long)jget_u64(p, "relax_after"));
	printf("  horizon            = %s\n",
	       fmt_duration(t, sizeof(t), jget_u64(p, "horizon_ms")));
	printf("  act_on             = %s\n", jget_text(p, "act_on"));
	if (json_object_array_length(inh)) {
		printf("  from [policy default]:");
		for (size_t i = 0; i < json_object_array_length(inh); i++)
			print_item(" ", json_object_array_get_idx(inh, i));
		printf("\n");
	}
}

/* The last collapse asked for the cgroup: done, or why its guarantee is not met. */
static void print_reward(struct json_object *w)
{
	unsigned long long retry = jget_u64(w, "retry_in_ms");

	if (!w)
		return;
	printf("  reward: %s %s %.1fs ago: %s", jget_text(w, "action"), jget_text(w, "result"),
	       (double)jget_u64(w, "ago_ms") / 1000.0, jget_text(w, "detail"));
	if (retry)
		printf(" (next try in %.1fs)", (double)retry / 1000.0);
	printf("\n");
}

static void print_match(struct json_object *r)
{
	struct json_object *c = jget(r, "matched");

	printf("cgroup %s%s\n", jget_text(r, "cgroup"),
	       json_object_get_boolean(jget(r, "tracked")) ? "" : " (not tracked now)");
	for (size_t i = 0; i < json_object_array_length(c); i++) {
		struct json_object *m = json_object_array_get_idx(c, i);

		printf("  %s policy %-16s glob %-32s %llu literal, %llu wildcard (%s)\n",
		       json_object_get_boolean(jget(m, "won")) ? "*" : " ", jget_text(m, "policy"),
		       jget_text(m, "glob"), (unsigned long long)jget_u64(m, "literals"),
		       (unsigned long long)jget_u64(m, "wildcards"), jget_text(m, "defined_at"));
	}
	printf("why: %s\n", jget_text(r, "reason"));
	print_reward(jget(r, "reward"));
	printf("\n");
	print_policy(jget(r, "policy"));
}

int taoctl_policy(const struct taoctl *ctl, int argc, char **argv)
{
	struct json_object *args = json_object_new_object(), *r, *list;
	int rc;

	if (argc > 2) {
		fprintf(stderr, "taoctl: policy takes at most one cgroup path\n");
		json_object_put(args);
		return EXIT_USAGE;
	}
	if (argc == 2)
		json_add_str(args, "cgroup", argv[1]);
	rc = taoctl_request(ctl, "policy", args, &r);
	json_object_put(args);
	if (rc)
		return rc;
	list = jget(r, "policies");
	if (ctl->json)
		print_json(r);
	else if (argc == 2)
		print_match(r);
	for (size_t i = 0; !ctl->json && list && i < json_object_array_length(list); i++)
		print_policy(json_object_array_get_idx(list, i));
	json_object_put(r);
	return 0;
}

static void print_abuser(struct json_object *a)
{
	struct json_object *ev = jget(a, "evidence"), *next = jget(a, "next_action");
	struct json_object *off = jget(a, "offenders"), *hist = jget(a, "history");
	char wl[320];
	char t[32];

	printf("%s  %s for %s, policy %s, strikes %llu", jget_text(a, "cgroup"),
	       jget_text(a, "class"),
	       fmt_duration(t, sizeof(t), jget_u64(a, "class_for_ms") / 1000 * 1000),
	       jget_text(a, "policy"), (unsigned long long)jget_u64(a, "strikes"));
	if (ev)
		printf(", score %.2f", jget_double(ev, "score"));
	printf("\n");
	printf("  workload: %s\n", workload_column(a, wl, sizeof(wl)));
	printf("  evidence: %s\n", ev ? jget_text(ev, "text") : "-");
	if (ev && json_object_get_type(jget(ev, "top_cause")) == json_type_string)
		printf("  top cause: %s (%llu of %llu splits of its tasks; taoctl explain %s)\n",
		       jget_text(ev, "top_cause"),
		       (unsigned long long)jget_u64(ev, "top_cause_splits"),
		       (unsigned long long)jget_u64(ev, "task_splits"), jget_text(a, "cgroup"));
	printf("  history (oldest first):");
	for (size_t i = 0; i < json_object_array_length(hist); i++)
		printf(" %s", jget_text(json_object_array_get_idx(hist, i), "class"));
	printf("\n");
	for (size_t i = 0; i < json_object_array_length(off); i++) {
		struct json_object *t = json_object_array_get_idx(off, i);

		printf("  offender: pid %llu %s, %llu splits of %llu THP faults, top cause %s\n",
		       (unsigned long long)jget_u64(t, "pid"), jget_text(t, "comm"),
		       (unsigned long long)jget_u64(t, "pmd_split"),
		       (unsigned long long)jget_u64(t, "thp_fault_alloc"),
		       json_object_get_type(jget(t, "top_cause")) == json_type_string
			   ? jget_text(t, "top_cause")
			   : "untold");
	}
	if (next)
		printf("  next: %s in %.1fs if %s\n", jget_text(next, "action"),
		       (double)jget_u64(next, "due_in_ms") / 1000.0, jget_text(next, "if"));
	else
		printf("  next: nothing due\n");
	print_reward(jget(a, "reward"));
}

const struct taoctl_opt abusers_opts[] = {{"all", 'a', NULL}, {0}};

int taoctl_abusers(const struct taoctl *ctl, int argc, char **argv)
{
	struct json_object *args = json_object_new_object(), *r, *list;
	int c, rc;

	while ((c = taoctl_getopt(argc, argv, abusers_opts, false)) != -1) {
		if (c != 'a') {
			fprintf(stderr, "taoctl: abusers takes only --all\n");
			json_object_put(args);
			return EXIT_USAGE;
		}
		json_add_bool(args, "all", 1);
	}
	if (optind < argc) {
		fprintf(stderr, "taoctl: abusers: unexpected argument \"%s\"\n", argv[optind]);
		json_object_put(args);
		return EXIT_USAGE;
	}
	rc = taoctl_request(ctl, "abusers", args, &r);
	json_object_put(args);
	if (rc)
		return rc;
	list = jget(r, "cgroups");
	if (ctl->json)
		print_json(list);
	else if (!json_object_array_length(list))
		printf("no cgroup is classed misuser or abuser\n");
	for (size_t i = 0; !ctl->json && i < json_object_array_length(list); i++)
		print_abuser(json_object_array_get_idx(list, i));
	json_object_put(r);
	return 0;
}

/* Changes read but not applied: the operator must know a restart is due. */
static void print_restart_needed(struct json_object *keys)
{
	size_t n = keys ? json_object_array_length(keys) : 0;

	if (!n)
		return;
	printf("not applied until taod restarts:");
	for (size_t i = 0; i < n; i++)
		print_item(i ? ", " : " ", json_object_array_get_idx(keys, i));
	printf("\n");
}

int taoctl_reload(const struct taoctl *ctl, int argc, char **argv)
{
	struct json_object *r, *errs;
	int rc;

	(void)argv;
	if (argc > 1) {
		fprintf(stderr, "taoctl: reload takes no arguments\n");
		return EXIT_USAGE;
	}
	rc = client_call(ctl->socket_path, "reload", NULL, &r);
	if (rc)
		return rc;
	rc = json_object_get_boolean(jget(r, "ok")) ? EXIT_OK : EXIT_FAILED;
	if (ctl->json) {
		print_json(r);
	} else if (rc == EXIT_OK) {
		printf("reloaded %s: %llu policies\n", jget_text(r, "config"),
		       (unsigned long long)jget_u64(r, "policies"));
		print_restart_needed(jget(r, "restart_needed"));
	} else {
		fprintf(stderr, "taoctl: reload rejected: %s\n", jget_text(r, "error"));
		errs = jget(r, "errors");
		for (size_t i = 0; errs && i < json_object_array_length(errs); i++) {
			text_fputs(json_object_get_string(json_object_array_get_idx(errs, i)),
				   stderr);
			fputc('\n', stderr);
		}
	}
	json_object_put(r);
	return rc;
}
