/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A command's usage and the check of its words, both from its row of
 * taoctl.c's table: --help, usage errors and the top-level help print the
 * same line, and no command runs (or sends anything) with an option it
 * does not take, an option's argument missing, or operands too few or many.
 */
#ifndef TAOCTL_COMMAND_ARGS_H
#define TAOCTL_COMMAND_ARGS_H

#include <stdio.h>

#include "subcommands.h"

/* "cgroups [--sort KEY] ... [GLOB]": the row's synopsis, no newline. */
void taoctl_command_synopsis(FILE *f, const struct taoctl_command *c);
/* "Usage: taoctl SYNOPSIS", what it does, then the row's value lists. */
void taoctl_command_usage(FILE *f, const struct taoctl_command *c);

/*
 * Checks @argv (argv[0] the command's name) against @c's row, @argv left
 * as it is. -h or --help: the usage on stdout, EXIT_OK. An option the row
 * lacks, one without its argument, too few or too many operands: the error
 * and the usage on stderr, EXIT_USAGE. -1: the words fit, run the command.
 */
int taoctl_check_args(const struct taoctl_command *c, int argc, char **argv);

#endif
