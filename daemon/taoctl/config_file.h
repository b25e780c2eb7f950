/* SPDX-License-Identifier: GPL-2.0 */
/* The configuration file taoctl reads, with taod's own parser. */
#ifndef TAOCTL_CONFIG_FILE_H
#define TAOCTL_CONFIG_FILE_H

struct taod_config;

/*
 * Reads @path and its drop-ins (@path.d/) as taod would. EXIT_OK with
 * *out malloc'd, else an exit code after printing every error as
 * file:line (EXIT_USAGE) or why (EXIT_FAILED, out of memory).
 */
int taoctl_read_config(const char *path, struct taod_config **out);

#endif
