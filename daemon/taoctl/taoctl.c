// SPDX-License-Identifier: GPL-2.0
/* taoctl: query and steer taod through its control socket. */
#include <getopt.h>
#include <limits.h>
#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "client.h"
#include "command_args.h"
#include "config_file.h"
#include "config/config.h"
#include "common/version.h"
#include "subcommands.h"
#include "format.h"
#include "json_errors.h"

/* A row: name, lead, options, operands, what it does, operands from-to,
 * the values it lists in its usage, and the function that runs it. */
static const struct taoctl_command commands[] = {
    {"status", "", NULL, "", "daemon version, kernel kind, observation mode, counts", 0, 0, NULL,
     taoctl_status},
    {"cgroups", "", cgroups_opts, "[GLOB]", "THP use and coverage per cgroup", 0, 1,
     taoctl_sort_keys, taoctl_cgroups},
    {"top-tasks", "", list_opts, "", "tasks that split the most THPs", 0, 0, NULL,
     taoctl_top_tasks},
    {"actions", "", list_opts, "", "the audit log: actions done or suppressed", 0, 0, NULL,
     taoctl_actions},
    {"act", "ACTION", act_opts, "", "(root) one action through the safety gate", 1, 1,
     taoctl_act_words, taoctl_act},
    {"policy", "", NULL, "[CGROUP]", "policies, or which applies to CGROUP and why", 0, 1, NULL,
     taoctl_policy},
    {"explain", "", NULL, "CGROUP|PID", "why THPs split: causes per task, the allocator's fix", 1,
     1, NULL, taoctl_explain},
    {"abusers", "", abusers_opts, "",
     "misusers and abusers: evidence, offenders, next action (--all: good tenants too)", 0, 0, NULL,
     taoctl_abusers},
    {"reload", "", NULL, "", "re-read the configuration (root); errors keep the old one", 0, 0,
     NULL, taoctl_reload},
    {"report", "", report_opts, "", "THP coverage history from the database (no daemon needed)", 0,
     0, NULL, taoctl_report},
    {"metrics", "", NULL, "", "Prometheus text exposition from taod", 0, 0, NULL, taoctl_metrics},
    {"zones", "", zones_opts, "",
     "TAO policy zones, their use, the boot-time sizes to use; --apply (root) writes them", 0, 0,
     NULL, taoctl_zones},
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
		fprintf(f, "  ");
		taoctl_command_synopsis(f, &commands[i]);
		fprintf(f, "\n      %s\n", commands[i].help);
	}
	fprintf(f, "\n\"taoctl COMMAND --help\" shows one command's usage.\n"
		   "\nExit codes: 0 ok, 1 taod refused (act: the action was not done),\n"
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
	int rc = taoctl_read_config(path, taoctl_needs_socket, &cfg);

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

	opterr = 0; /* the message below says what was wrong */
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
			fprintf(stderr, "taoctl: %s %s\n",
				optopt && strchr("sc", optopt) ? "an argument is missing after"
							       : "unknown option",
				argv[optind - 1]);
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

static const struct taoctl_command *find_command(const char *name)
{
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		if (!strcmp(commands[i].name, name))
			return &commands[i];
	return NULL;
}

/* --json is accepted after the command too: taken out of @argv. */
static int take_json(struct taoctl *ctl, int argc, char **argv)
{
	for (int a = 1; a < argc; a++)
		if (!strcmp(argv[a], "--json")) {
			ctl->json = true;
			memmove(&argv[a], &argv[a + 1], (size_t)(argc - a) * sizeof(char *));
			argc--;
			a--;
		}
	return argc;
}

static int run(struct taoctl *ctl, int argc, char **argv)
{
	const struct taoctl_command *cmd;
	int first = main_options(argc, argv, ctl), sub_argc, rc;
	char **sub_argv;

	if (first <= 0)
		return -first;
	sub_argv = argv + first;
	cmd = find_command(sub_argv[0]);
	if (!cmd) {
		fprintf(stderr, "taoctl: unknown command \"%s\"\n", sub_argv[0]);
		usage(stderr);
		return EXIT_USAGE;
	}
	sub_argc = take_json(ctl, argc - first, sub_argv);
	rc = taoctl_check_args(cmd, sub_argc, sub_argv);
	if (rc >= 0)
		return rc;
	optind = 0; /* the command's own scan starts afresh */
	return cmd->run(ctl, sub_argc, sub_argv);
}

int main(int argc, char **argv)
{
	struct taoctl ctl = {.socket_path = getenv("TAOD_SOCKET")};
	bool held = json_errors_asked(argc, argv) && json_errors_hold();
	int rc;

	if (!ctl.socket_path)
		ctl.socket_path = TAOD_DEFAULT_SOCKET;
	rc = run(&ctl, argc, argv);
	return held ? json_errors_finish(ctl.json, rc) : rc;
}
