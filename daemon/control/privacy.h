/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What a reader who does not see all (struct peer's sees_all: neither
 * root nor in [control] group) may see of a reply: the rows of cgroups
 * whose directory it owns, and tasks' own fields (comm, stack, allocator,
 * advice) only of tasks running as its uid. One table in privacy.c says
 * which rows of which command's reply are private.
 */
#ifndef TAOD_PRIVACY_H
#define TAOD_PRIVACY_H

#include "control_server.h"
#include "pipeline.h"

struct json_object;

/*
 * @reply (taken) as @peer may see it, for @command: unchanged for a peer
 * that sees all and for an error reply; else filtered in place, or
 * replaced by a "permission denied" error where the reply as a whole is
 * about another user's cgroup (explain, policy) or names them all
 * (metrics).
 */
struct json_object *privacy_filter(const struct taod *d, const struct peer *peer,
				   const char *command, struct json_object *reply);
/*
 * Before any work: NULL when @peer may have @command's @request answered,
 * else the error to send. A reader who does not see all naming another
 * user's cgroup or task (explain, policy) gets the answer a missing one
 * gets, so neither the reply nor its cost tells which it was.
 */
struct json_object *privacy_precheck(const struct taod *d, const struct peer *peer,
				     const char *command, struct json_object *request);

#endif
