// SPDX-License-Identifier: GPL-2.0
/* taoctl: query and steer taod through its control socket. */
#include <getopt.h>
#include <limits.h>
#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "client.h"
#include "config_file.h"
#include "config/config.h"
#include "common/version.h"
#include "subcommands.h"
#include "format.h"

static const struct taoctl_command commands[] = {
    {"status", "", NULL, "", "daemon version, kernel kind, observation mode, counts",
     taoctl_status},
    {"cgroups", "", cgroups_opts, "[GLOB]", "THP use and coverage per cgroup", taoctl_cgroups},
    {"top-tasks", "", list_opts, "", "tasks that split the most THPs", taoctl_top_tasks},
    {"actions", "", list_opts, "", "the audit log: actions done or suppressed", taoctl_actions},
    {"act", "ACTION", act_opts, "", "(root) one action through the safety gate", taoctl_act},
    {"policy", "", NULL, "[CGROUP]", "policies, or which applies to CGROUP and why", taoctl_policy},
    {"explain", "", NULL, "CGROUP|PID", "why THPs split: causes per task, the allocator's fix",
     taoctl_explain},
    {"abusers", "", abusers_opts, "",
     "misusers and abusers: evidence, offenders, next action (--all: good tenants too)",
     taoctl_abusers},
    {"reload", "", NULL, "", "re-read the configuration (root); errors keep the old one",
     taoctl_reload},
    {"report", "", report_opts, "", "THP coverage history from the database (no daemon needed)",
     taoctl_report},
    {"metrics", "", NULL, "", "Prometheus text exposition from taod", taoctl_metrics},
    {"zones", "", zones_opts, "",
     "TAO policy zones, their use, the boot-time sizes to use; --apply (root) writes them",
     taoctl_zones},
};

static const struct taoctl_opt main_opts[] = {{"socket", 's', "PATH"}, {"config", 'c', "CONFIG"},
					      {"json", 'j', NULL},     {"help", 'h', NULL},
					      {"version", 'V', NULL},  {0}};

/* Generated from the tables above: a command's line, then what it does. */
static void usage(FILE *f)
{
	fprintf(f, "Usage: taoctl");
	taoctl_opts_usage(f, main_opts);
	fprintf(f, " COMMAND [ARGS]\n\nCommands (each takes --json too):\n");
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++) {
		const struct taoctl_command *c = &commands[i];

		fprintf(f, "  %s%s%s", c->name, *c->lead ? " " : "", c->lead);
		taoctl_opts_usage(f, c->opts);
		fprintf(f, "%s%s\n      %s\n", *c->operands ? " " : "", c->operands, c->help);
	}
	fprintf(f, "\nExit codes: 0 ok, 1 taod refused (act: the action was not done),\n"
		   "2 usage, 3 taod not running, 4 no access to the socket,\n"
		   "5 unreadable reply.\n");
}

int taoctl_request(const struct taoctl *ctl, const char *command, struct json_object *args,
		   struct json_object **reply)
{
	int rc = client_call(ctl->socket_path, command, args, reply);

	if (rc)
		return rc;
	if (!json_object_get_boolean(jget(*reply, "ok"))) {
		fprintf(stderr, "taoctl: %s: %s\n", command, jget_text(*reply, "error"));
		json_object_put(*reply);
		*reply = NULL;
		return EXIT_FAILED;
	}
	return EXIT_OK;
}

/* The socket -c CONFIG names ([control] socket), read as taod reads it. */
static int socket_from_config(const char *path, const char **socket_path)
{
	static char buf[PATH_MAX];
	struct taod_config *cfg;
	int rc = taoctl_read_config(path, &cfg);

	if (rc)
		return rc;
	snprintf(buf, sizeof(buf), "%s", cfg->socket_path);
	free(cfg);
	*socket_path = buf;
	return EXIT_OK;
}

/* Global options; the command's index in argv, or -exit code. */
static int main_options(int argc, char **argv, struct taoctl *ctl)
{
	const char *socket = NULL;
	int c, rc;

	while ((c = taoctl_getopt(argc, argv, main_opts, true)) != -1) {
		if (c == 's')
			socket = optarg;
		else if (c == 'c')
			ctl->config = optarg;
		else if (c == 'j')
			ctl->json = true;
		else if (c == 'V') {
			printf("taoctl %s\n", taod_version());
			return -EXIT_OK;
		} else if (c == 'h') {
			usage(stdout);
			return -EXIT_OK;
		} else {
			usage(stderr);
			return -EXIT_USAGE;
		}
	}
	/* --socket, else the config's socket, else $TAOD_SOCKET, else the default. */
	if (socket)
		ctl->socket_path = socket;
	else if (ctl->config && (rc = socket_from_config(ctl->config, &ctl->socket_path)))
		return -rc;
	if (optind >= argc) {
		usage(stderr);
		return -EXIT_USAGE;
	}
	return optind;
}

int main(int argc, char **argv)
{
	struct taoctl ctl = {.socket_path = getenv("TAOD_SOCKET")};
	int first;

	if (!ctl.socket_path)
		ctl.socket_path = TAOD_DEFAULT_SOCKET;
	first = main_options(argc, argv, &ctl);
	if (first <= 0)
		return -first;
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++) {
		int sub_argc = argc - first;
		char **sub_argv = argv + first;

		if (strcmp(commands[i].name, sub_argv[0]))
			continue;
		/* --json is accepted after the command too. */
		for (int a = 1; a < sub_argc; a++)
			if (!strcmp(sub_argv[a], "--json")) {
				ctl.json = true;
				memmove(&sub_argv[a], &sub_argv[a + 1],
					(size_t)(sub_argc - a) * sizeof(char *));
				sub_argc--;
				a--;
			}
		optind = 1;
		return commands[i].run(&ctl, sub_argc, sub_argv);
	}
	fprintf(stderr, "taoctl: unknown command \"%s\"\n", argv[first]);
	usage(stderr);
	return EXIT_USAGE;
}
