/* SPDX-License-Identifier: GPL-2.0 */
/*
 * taoctl's option tables: one per command, read by the parser and by
 * --help, so the help cannot name an option the parser lacks or omit one
 * it takes (tests/integration/test_taoctl_ux.py holds taoctl(8) to them).
 */
#ifndef TAOCTL_OPTIONS_H
#define TAOCTL_OPTIONS_H

#include <stdbool.h>
#include <stdio.h>

struct taoctl_opt {
	const char *name; /* the long option, without "--"; NULL ends a table */
	char letter;	  /* its short form, and what taoctl_getopt returns */
	const char *arg;  /* the argument's name in help; NULL for a flag */
};

/*
 * getopt_long over @opts (optarg, optind as getopt sets them): the letter
 * of the next option, -1 at the end, '?' for one not in the table.
 */
int taoctl_getopt(int argc, char **argv, const struct taoctl_opt *opts, bool stop_at_operand);

/* " [--name ARG]" for each option of @opts. */
void taoctl_opts_usage(FILE *f, const struct taoctl_opt *opts);

#endif
