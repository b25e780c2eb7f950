/* SPDX-License-Identifier: GPL-2.0 */
/* taoctl subcommands: each parses its options and prints the reply. */
#ifndef TAOCTL_SUBCOMMANDS_H
#define TAOCTL_SUBCOMMANDS_H

#include <stdbool.h>
#include <stdio.h>

#include "options.h"

struct json_object;

struct taoctl {
	const char *socket_path;
	const char *config; /* -c CONFIG before the command; NULL: none given */
	bool json;
};

struct taoctl_command {
	const char *name;
	const char *lead;	       /* operands before the options ("ACTION"), or "" */
	const struct taoctl_opt *opts; /* NULL: none */
	const char *operands;	       /* after the options ("[GLOB]"), or "" */
	const char *help;
	int min_operands, max_operands; /* the lead counts too */
	void (*more)(FILE *f);		/* the values an option takes, or NULL */
	int (*run)(const struct taoctl *ctl, int argc, char **argv);
};

/* Each command's options, as its parser takes them and --help prints them. */
extern const struct taoctl_opt cgroups_opts[], list_opts[], act_opts[], abusers_opts[],
    report_opts[], zones_opts[];

/* The values of act's ACTION and of cgroups' --sort KEY, for the usage. */
void taoctl_act_words(FILE *f);
void taoctl_sort_keys(FILE *f);

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
