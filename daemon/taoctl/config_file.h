/* SPDX-License-Identifier: GPL-2.0 */
/* The configuration file taoctl reads, with taod's own parser. */
#ifndef TAOCTL_CONFIG_FILE_H
#define TAOCTL_CONFIG_FILE_H

struct taod_config;

/* What taoctl takes from a configuration: the errors that spoil it. */
extern const char *const taoctl_needs_socket[];	 /* [control] socket */
extern const char *const taoctl_needs_history[]; /* [history] path, the policies */

/*
 * Reads @path and its drop-ins (@path.d/) as taod would. An error in a
 * setting @needs does not name (a NULL-ended list of message prefixes,
 * such as "[control] socket ") is a warning: taoctl needs the rest, and
 * an operator needs `status` most when the file has an error. EXIT_OK with
 * *out malloc'd, else an exit code after printing every error as
 * file:line (EXIT_USAGE) or why (EXIT_FAILED, out of memory).
 */
int taoctl_read_config(const char *path, const char *const *needs, struct taod_config **out);

#endif
