// SPDX-License-Identifier: GPL-2.0
/* taoctl: query and steer taod through its control socket. */
#include <getopt.h>
#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "client.h"
#include "taod/config.h"
#include "commands.h"
#include "format.h"

static const struct taoctl_command commands[] = {
    {"status", "", "daemon version, kernel kind, observation mode, counts", taoctl_status},
    {"cgroups", "[--sort KEY] [--sizes] [GLOB]", "THP use and coverage per cgroup", taoctl_cgroups},
    {"top-tasks", "[--limit N] [--cgroup GLOB]", "tasks that split the most THPs",
     taoctl_top_tasks},
    {"actions", "[--limit N] [--cgroup GLOB]", "the audit log: actions done or suppressed",
     taoctl_actions},
    {"act", "ACTION --cgroup P [--pid N] [--dry-run]", "(root) one action through the safety gate",
     taoctl_act},
    {"policy", "[CGROUP]", "policies, or which applies to CGROUP and why", taoctl_policy},
    {"explain", "CGROUP|PID", "why THPs split: causes per task, the allocator's fix",
     taoctl_explain},
    {"abusers", "[--all]", "misusers and abusers: evidence, offenders, next action",
     taoctl_abusers},
    {"reload", "", "re-read the configuration (root); errors keep the old one", taoctl_reload},
    {"report", "[--since D] [--cgroup G] [--format F] [--sizes]",
     "THP coverage history from the database (no daemon needed)", taoctl_report},
    {"metrics", "", "Prometheus text exposition from taod", taoctl_metrics},
    {"zones", "[--apply [--dry-run]]",
     "TAO policy zones, their use, the boot-time sizes to use; --apply (root) writes them",
     taoctl_zones},
};

static void usage(FILE *f)
{
	fprintf(f, "Usage: taoctl [--socket PATH] [--json] COMMAND [ARGS]\n\nCommands:\n");
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		fprintf(f, "  %-10s %-30s %s\n", commands[i].name, commands[i].args,
			commands[i].help);
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

int main(int argc, char **argv)
{
	static const struct option opts[] = {{"socket", required_argument, NULL, 's'},
					     {"json", no_argument, NULL, 'j'},
					     {"help", no_argument, NULL, 'h'},
					     {NULL, 0, NULL, 0}};
	struct taoctl ctl = {.socket_path = getenv("TAOD_SOCKET")};
	int c;

	if (!ctl.socket_path)
		ctl.socket_path = TAOD_DEFAULT_SOCKET;
	/* '+': options after the command belong to the command. */
	while ((c = getopt_long(argc, argv, "+s:jh", opts, NULL)) != -1) {
		if (c == 's')
			ctl.socket_path = optarg;
		else if (c == 'j')
			ctl.json = true;
		else if (c == 'h') {
			usage(stdout);
			return EXIT_OK;
		} else {
			usage(stderr);
			return EXIT_USAGE;
		}
	}
	if (optind >= argc) {
		usage(stderr);
		return EXIT_USAGE;
	}
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++) {
		int sub_argc = argc - optind;
		char **sub_argv = argv + optind;

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
	fprintf(stderr, "taoctl: unknown command \"%s\"\n", argv[optind]);
	usage(stderr);
	return EXIT_USAGE;
}
