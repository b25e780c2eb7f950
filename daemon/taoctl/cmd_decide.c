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

/* How a policy key's value is printed: as taod.conf spells it. */
enum key_kind { K_PCT, K_RATIO, K_COUNT, K_DURATION, K_TEXT, K_YES_NO };

/* A policy's keys in the reply's order: its name there, its JSON field, its kind. */
static const struct {
	const char *key, *field;
	enum key_kind kind;
} policy_keys[] = {
    {"coverage_guarantee", "coverage_guarantee", K_PCT},
    {"max_split_ratio", "max_split_ratio", K_RATIO},
    {"min_allocs", "min_allocs", K_COUNT},
    {"window", "window_ms", K_DURATION},
    {"ladder", "ladder", K_TEXT},
    {"cooldown", "cooldown_ms", K_DURATION},
    {"dry_run", "dry_run", K_YES_NO},
    {"escalate_after", "escalate_after", K_COUNT},
    {"relax_after", "relax_after", K_COUNT},
    {"horizon", "horizon_ms", K_DURATION},
    {"act_on", "act_on", K_TEXT},
    {"sizes", "sizes", K_TEXT},
    {"act_when", "act_when", K_TEXT},
};

static void print_key(struct json_object *p, size_t k)
{
	const char *field = policy_keys[k].field;
	char t[32];

	printf("  %-18s = ", policy_keys[k].key);
	switch (policy_keys[k].kind) {
	case K_PCT:
		printf("%g%%\n", jget_double(p, field));
		break;
	case K_RATIO:
		printf("%g\n", jget_double(p, field));
		break;
	case K_COUNT:
		printf("%llu\n", (unsigned long long)jget_u64(p, field));
		break;
	case K_DURATION:
		printf("%s\n", fmt_duration(t, sizeof(t), jget_u64(p, field)));
		break;
	case K_TEXT:
		printf("%s\n", jget_text(p, field));
		break;
	case K_YES_NO:
		printf("%s\n", json_object_get_boolean(jget(p, field)) ? "yes" : "no");
		break;
	}
}

static void print_policy(struct json_object *p)
{
	struct json_object *m = jget(p, "match"), *inh = jget(p, "from_default");
	const char *at = jget_text(p, "defined_at");

	/* "(built-in)" is in parentheses already. */
	printf("[policy %s]  %s%s%s\n", jget_text(p, "name"), *at == '(' ? "" : "(", at,
	       *at == '(' ? "" : ")");
	printf("  match              =");
	for (size_t i = 0; i < json_object_array_length(m); i++)
		print_item(" ", json_object_array_get_idx(m, i));
	printf("%s\n",
	       json_object_array_length(m) ? "" : " (every cgroup no other policy matches)");
	for (size_t k = 0; k < sizeof(policy_keys) / sizeof(policy_keys[0]); k++) {
		print_key(p, k);
		if (!strcmp(policy_keys[k].key, "ladder") && *jget_str(p, "ladder_note"))
			printf("                       (%s)\n", jget_text(p, "ladder_note"));
	}
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

		/* Its own faults only: khugepaged's collapses are the tenant's,
		 * counted in the evidence's given, never a task's. */
		printf("  offender: pid %llu %s, %llu splits, top cause %s; %llu THP faults of "
		       "its own (collapses: the tenant's given)\n",
		       (unsigned long long)jget_u64(t, "pid"), jget_text(t, "comm"),
		       (unsigned long long)jget_u64(t, "pmd_split"),
		       json_object_get_type(jget(t, "top_cause")) == json_type_string
			   ? jget_text(t, "top_cause")
			   : "untold",
		       (unsigned long long)jget_u64(t, "thp_fault_alloc"));
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
