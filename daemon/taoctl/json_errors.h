/* SPDX-License-Identifier: GPL-2.0 */
/*
 * With --json, an error reaches a script as JSON on stdout too: what
 * taoctl writes to stderr while it runs is held, then written to stderr
 * all the same and, when taoctl exits non-zero, as {"error": TEXT,
 * "exit": N} on stdout. Held in one place, so no error path (getopt's,
 * the configuration reader's, the client's) can miss it.
 */
#ifndef TAOCTL_JSON_ERRORS_H
#define TAOCTL_JSON_ERRORS_H

#include <stdbool.h>

/* Whether @argv asks for --json (or -j) anywhere. */
bool json_errors_asked(int argc, char **argv);
/* From now on stderr is held; false (and stderr left as it is) if it cannot be. */
bool json_errors_hold(void);
/*
 * Writes what was held to the real stderr and, with @json and @rc non-zero
 * and something held, the JSON error on stdout. Returns @rc.
 */
int json_errors_finish(bool json, int rc);

#endif
