/* SPDX-License-Identifier: GPL-2.0 */
/* taoctl subcommands: each parses its options and prints the reply. */
#ifndef TAOCTL_COMMANDS_H
#define TAOCTL_COMMANDS_H

#include <stdbool.h>

struct taoctl {
	const char *socket_path;
	bool json;
};

struct taoctl_command {
	const char *name;
	const char *args;
	const char *help;
	int (*run)(const struct taoctl *ctl, int argc, char **argv);
};

int taoctl_status(const struct taoctl *ctl, int argc, char **argv);
int taoctl_cgroups(const struct taoctl *ctl, int argc, char **argv);
int taoctl_top_tasks(const struct taoctl *ctl, int argc, char **argv);
int taoctl_actions(const struct taoctl *ctl, int argc, char **argv);
int taoctl_act(const struct taoctl *ctl, int argc, char **argv);
int taoctl_policy(const struct taoctl *ctl, int argc, char **argv);
int taoctl_abusers(const struct taoctl *ctl, int argc, char **argv);
int taoctl_reload(const struct taoctl *ctl, int argc, char **argv);
int taoctl_report(const struct taoctl *ctl, int argc, char **argv);
int taoctl_metrics(const struct taoctl *ctl, int argc, char **argv);
int taoctl_zones(const struct taoctl *ctl, int argc, char **argv);
int taoctl_explain(const struct taoctl *ctl, int argc, char **argv);

/* Calls taod and, on an error reply, prints it. Returns an exit code. */
int taoctl_request(const struct taoctl *ctl, const char *command, struct json_object *args,
		   struct json_object **reply);

#endif
