// SPDX-License-Identifier: GPL-2.0
#include "command_args.h"

#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "client.h"

#define MAX_OPTS 16

void taoctl_command_synopsis(FILE *f, const struct taoctl_command *c)
{
	fprintf(f, "%s%s%s", c->name, *c->lead ? " " : "", c->lead);
	taoctl_opts_usage(f, c->opts);
	fprintf(f, "%s%s", *c->operands ? " " : "", c->operands);
}

void taoctl_command_usage(FILE *f, const struct taoctl_command *c)
{
	fprintf(f, "Usage: taoctl ");
	taoctl_command_synopsis(f, c);
	fprintf(f, " [--json]\n  %s\n", c->help);
	if (c->more)
		c->more(f);
}

/* @c's options and --help, in @all (room for MAX_OPTS + 2 rows). */
static void with_help(const struct taoctl_command *c, struct taoctl_opt *all)
{
	size_t n = 0;

	for (; c->opts && c->opts[n].name && n < MAX_OPTS; n++)
		all[n] = c->opts[n];
	all[n++] = (struct taoctl_opt){"help", 'h', NULL};
	all[n] = (struct taoctl_opt){0};
}

static const struct taoctl_opt *opt_of(const struct taoctl_opt *opts, int letter)
{
	for (; opts->name; opts++)
		if (opts->letter == letter)
			return opts;
	return NULL;
}

static int usage_error(const struct taoctl_command *c)
{
	taoctl_command_usage(stderr, c);
	return EXIT_USAGE;
}

/* The options of @words; -1 when they fit, else an exit code. */
static int check_options(const struct taoctl_command *c, int argc, char **words)
{
	struct taoctl_opt all[MAX_OPTS + 2];
	const struct taoctl_opt *o;
	int ch;

	with_help(c, all);
	opterr = 0; /* the messages below name the command */
	optind = 0; /* a fresh scan: GNU getopt starts over */
	while ((ch = taoctl_getopt(argc, words, all, false)) != -1) {
		if (ch == 'h') {
			taoctl_command_usage(stdout, c);
			return EXIT_OK;
		}
		if (ch != '?')
			continue;
		o = optopt ? opt_of(all, optopt) : NULL;
		if (o && o->arg)
			fprintf(stderr, "taoctl: %s: --%s needs an argument (%s)\n", c->name,
				o->name, o->arg);
		else
			fprintf(stderr, "taoctl: %s: unknown option %s\n", c->name,
				words[optind - 1]);
		return usage_error(c);
	}
	return -1;
}

int taoctl_check_args(const struct taoctl_command *c, int argc, char **argv)
{
	char **words = calloc((size_t)argc + 1, sizeof(*words));
	int rc, operands;

	if (!words)
		return EXIT_FAILED;
	memcpy(words, argv, (size_t)argc * sizeof(*words)); /* getopt permutes it */
	rc = check_options(c, argc, words);
	operands = argc - optind;
	if (rc == -1 && operands < c->min_operands) {
		fprintf(stderr, "taoctl: %s: missing %s\n", c->name,
			*c->lead ? c->lead : c->operands);
		rc = usage_error(c);
	} else if (rc == -1 && operands > c->max_operands) {
		fprintf(stderr, "taoctl: %s: unexpected argument \"%s\"\n", c->name,
			words[optind + c->max_operands]);
		rc = usage_error(c);
	}
	free(words);
	optind = 0;
	return rc;
}
