// SPDX-License-Identifier: GPL-2.0
#include <getopt.h>
#include <stdbool.h>

#include "options.h"

#define MAX_OPTS 16

int taoctl_getopt(int argc, char **argv, const struct taoctl_opt *opts, bool stop_at_operand)
{
	struct option longs[MAX_OPTS + 1] = {{0}};
	char shorts[2 * MAX_OPTS + 2];
	size_t n = 0, s = 0;

	if (stop_at_operand) /* '+': what follows the command is the command's */
		shorts[s++] = '+';
	for (; n < MAX_OPTS && opts[n].name; n++) {
		longs[n] =
		    (struct option){opts[n].name, opts[n].arg ? required_argument : no_argument,
				    NULL, opts[n].letter};
		shorts[s++] = opts[n].letter;
		if (opts[n].arg)
			shorts[s++] = ':';
	}
	shorts[s] = '\0';
	return getopt_long(argc, argv, shorts, longs, NULL);
}

void taoctl_opts_usage(FILE *f, const struct taoctl_opt *opts)
{
	for (; opts && opts->name; opts++)
		if (opts->arg)
			fprintf(f, " [--%s %s]", opts->name, opts->arg);
		else
			fprintf(f, " [--%s]", opts->name);
}
