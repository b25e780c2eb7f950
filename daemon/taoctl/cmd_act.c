// SPDX-License-Identifier: GPL-2.0
/* taoctl actions, act: the audit log and operator-requested actions. */
#include <getopt.h>
#include <json-c/json.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "client.h"
#include "subcommands.h"
#include "format.h"
#include "common/action_kinds.h"
#include "common/cgroup_path.h"
#include "common/json_fields.h"

static const char *fmt_when(char *buf, size_t len, uint64_t ms)
{
	time_t t = (time_t)(ms / 1000);
	struct tm tm;

	if (!localtime_r(&t, &tm) || !strftime(buf, len, "%Y-%m-%d %H:%M:%S", &tm))
		snprintf(buf, len, "%llu", (unsigned long long)ms);
	return buf;
}

static void print_record(struct json_object *a, int width)
{
	char when[32];
	int err = (int)jget_u64(a, "errno");
	const char *cgroup = jget_text(a, "cgroup");

	printf("%-19s %-*s %7llu %-12s %-12s %-6s %s | %s\n",
	       fmt_when(when, sizeof(when), jget_u64(a, "time_ms")), width,
	       *cgroup ? cgroup : "(policy zones)", /* resize-zones is machine-wide */
	       (unsigned long long)jget_u64(a, "pid"), jget_text(a, "action"),
	       jget_text(a, "result"), err ? jget_text(a, "errno_name") : "-",
	       jget_text(a, "evidence"), jget_text(a, "detail"));
}

int taoctl_actions(const struct taoctl *ctl, int argc, char **argv)
{
	struct json_object *args = json_object_new_object(), *r, *list;
	long n;
	int c, rc;

	while ((c = taoctl_getopt(argc, argv, list_opts, false)) != -1) {
		if (c == 'g' && !opt_glob("--cgroup", optarg)) {
			json_add_str(args, "glob", optarg);
		} else if (c == 'n' && !opt_positive("--limit", optarg, &n)) {
			json_add_i64(args, "limit", n);
		} else {
			json_object_put(args);
			return EXIT_USAGE;
		}
	}
	rc = taoctl_request(ctl, "actions", args, &r);
	json_object_put(args);
	if (rc)
		return rc;
	list = jget(r, "actions");
	if (ctl->json) {
		print_json(list);
	} else {
		int w = column_width(list, "cgroup", 14); /* "(policy zones)" */

		printf("%-19s %-*s %7s %-12s %-12s %-6s %s\n", "WHEN", w, "CGROUP", "TASK",
		       "ACTION", "RESULT", "ERRNO", "EVIDENCE | DETAIL");
		for (size_t i = 0; i < json_object_array_length(list); i++)
			print_record(json_object_array_get_idx(list, i), w);
	}
	json_object_put(r);
	return 0;
}

/* The words come from the kinds' table (action_kinds.h). */
void taoctl_act_words(FILE *f)
{
	char words[160];

	action_kind_words(words, sizeof(words));
	fprintf(f, "  ACTION: %s\n", words);
	for (int k = 0; k < ACTION_KIND_MAX; k++)
		fprintf(f, "    %-13s %s\n", action_kind_name(k), action_kind_row(k)->what);
	fprintf(f, "  KIND: pmd, mthp, all\n");
}

const struct taoctl_opt act_opts[] = {{"cgroup", 'g', "PATH"}, {"pid", 'p', "PID"},
				      {"bytes", 'b', "SIZE"},  {"dry-run", 'd', NULL},
				      {"sizes", 'z', "KIND"},  {0}};

/* --sizes' words, as a policy's sizes key spells them. */
static bool sizes_word(const char *v)
{
	return !strcmp(v, "pmd") || !strcmp(v, "mthp") || !strcmp(v, "all");
}

/* The options into @args; 0, or -1 after an error naming the option. */
static int act_options(int argc, char **argv, struct json_object *args)
{
	uint64_t bytes;
	long n;
	int c;

	while ((c = taoctl_getopt(argc, argv, act_opts, false)) != -1) {
		if (c == 'g')
			json_add_str(args, "cgroup", optarg);
		else if (c == 'd')
			json_add_bool(args, "dry_run", 1);
		else if (c == 'z' && sizes_word(optarg))
			json_add_str(args, "sizes", optarg);
		else if (c == 'p' && !opt_positive("--pid", optarg, &n))
			json_add_i64(args, "pid", n);
		else if (c == 'b' && !opt_size("--bytes", optarg, &bytes))
			json_add_u64(args, "bytes", bytes);
		else {
			if (c == 'z')
				fprintf(stderr,
					"taoctl: --sizes \"%s\": expected pmd, mthp or all\n",
					optarg);
			return -1;
		}
	}
	return 0;
}

/* The action's word and its --cgroup, as taod would take them; 0 or -1 after the error. */
static int act_target(const char *word, struct json_object *args)
{
	const char *cgroup = jget_str(args, "cgroup");
	char words[160], why[96];
	int k = action_kind_by_name(word);

	if (k < 0) {
		action_kind_words(words, sizeof(words));
		fprintf(stderr, "taoctl: act: unknown ACTION \"%s\": expected one of %s\n", word,
			words);
		return -1;
	}
	if (!jget(args, "cgroup") && !action_kind_row(k)->machine_wide) {
		fprintf(stderr, "taoctl: act: %s needs --cgroup PATH\n", word);
		return -1;
	}
	if (jget(args, "cgroup") && !cgroup_path_canonical(cgroup, why, sizeof(why))) {
		fprintf(stderr, "taoctl: act: --cgroup \"%s\": %s\n", cgroup, why);
		return -1;
	}
	return 0;
}

/*
 * Scripts must not read a refusal as success: 0 only when the action was
 * carried out, or when a dry run was asked for and is what the gate did.
 * Every other result (allowlisted, vanished, dry-run by mode, rate-limited,
 * backing-off, unsupported, failed, not-possible, no-gain) is EXIT_FAILED.
 */
static int act_status(struct json_object *rec, bool dry_run_asked)
{
	const char *result = jget_text(rec, "result");

	if (!strcmp(result, "done") || (dry_run_asked && !strcmp(result, "dry-run")))
		return EXIT_OK;
	return EXIT_FAILED;
}

int taoctl_act(const struct taoctl *ctl, int argc, char **argv)
{
	struct json_object *args, *r, *rec;
	bool dry_run_asked;
	int rc;

	if (argv[1][0] == '-') {
		fprintf(stderr, "taoctl: act: ACTION comes first: taoctl act ACTION [options]\n");
		return EXIT_USAGE;
	}
	args = json_object_new_object();
	json_add_str(args, "action", argv[1]);
	if (act_options(argc - 1, argv + 1, args) || act_target(argv[1], args)) {
		json_object_put(args);
		return EXIT_USAGE;
	}
	dry_run_asked = json_object_get_boolean(jget(args, "dry_run"));
	rc = taoctl_request(ctl, "act", args, &r);
	json_object_put(args);
	if (rc)
		return rc;
	rec = jget(r, "record");
	rc = act_status(rec, dry_run_asked);
	if (ctl->json)
		print_json(rec);
	else
		printf("%s %s: %s (%s)\n", jget_text(rec, "action"), jget_text(rec, "cgroup"),
		       jget_text(rec, "result"), jget_text(rec, "detail"));
	json_object_put(r);
	return rc;
}
