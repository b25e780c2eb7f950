/* SPDX-License-Identifier: GPL-2.0 */
/* taoctl's side of the control socket. */
#ifndef TAOCTL_CLIENT_H
#define TAOCTL_CLIENT_H

struct json_object;

/* Exit codes that scripts can rely on. */
enum taoctl_exit {
	EXIT_OK = 0,
	EXIT_FAILED = 1, /* the daemon answered with an error */
	EXIT_USAGE = 2,
	EXIT_NOT_RUNNING = 3,
	EXIT_NO_ACCESS = 4,
	EXIT_PROTOCOL = 5, /* unreadable reply */
};

/*
 * Sends one request and reads the reply. Returns EXIT_OK with *reply set
 * (ok or not), or another exit code after printing why.
 */
int client_call(const char *socket_path, const char *command, struct json_object *args,
		struct json_object **reply);

#endif
