/* SPDX-License-Identifier: GPL-2.0 */
/* Control commands: who may run which, and what each answers. */
#ifndef TAOD_COMMANDS_H
#define TAOD_COMMANDS_H

#include "control_server.h"
#include "pipeline.h"
#include "report/metrics/metrics.h"

struct json_object *commands_dispatch(void *taod, const struct peer *peer,
				      struct json_object *request);

typedef struct json_object *(*command_fn)(struct taod *d, struct json_object *req);
/*
 * @run's reply to @peer (privacy filtered) computed in an offload child
 * given @time_ms (commands_off_loop.c): NULL, the reply deferred until the
 * child ends, or an error reply now (busy). Without an event loop it runs
 * here and returns the reply.
 */
struct json_object *command_off_loop(struct taod *d, const struct peer *peer, const char *name,
				     command_fn run, struct json_object *req, uint64_t time_ms);
/* An explain's time in its child: maps, stacks and files read within it
 * (with OFFLOAD_GRACE_MS, within the client's PROTOCOL_EXPLAIN_WAIT_S). */
#define EXPLAIN_TIME_MS 4000
/* A filtered reply's time in its child, for a reader who does not see all. */
#define READER_TIME_MS 4000

/* The act stage's commands (commands_act.c). */
struct json_object *cmd_actions(struct taod *d, struct json_object *req);
struct json_object *cmd_act(struct taod *d, struct json_object *req);
/* The TAO policy zones and their boot-time recommendation (commands_zones.c). */
struct json_object *cmd_zones(struct taod *d, struct json_object *req);
struct json_object *cmd_zones_apply(struct taod *d, struct json_object *req);
/* Backend, mode and (TAO) kernel counters, for status. */
struct json_object *act_status_json(struct taod *d);
/* The decide stage's commands (commands_policy.c, commands_abusers.c). */
struct json_object *cmd_policy(struct taod *d, struct json_object *req);
struct json_object *cmd_reload(struct taod *d, struct json_object *req);
struct json_object *cmd_abusers(struct taod *d, struct json_object *req);
struct json_object *policy_json(const struct taod *d, const struct policy *p);
/* The class and score of @cgroup_id's tenant, for `cgroups`; NULL if not judged. */
struct json_object *tenant_verdict_json(const struct taod *d, uint64_t cgroup_id);
/* The last collapse asked for @cgroup (actor_reward_state), or NULL when none was. */
struct json_object *reward_json(const struct taod *d, const char *cgroup);
/* Policies, classes and request counts, for status. */
struct json_object *decide_status_json(const struct taod *d);
/* The contiguity-pressure state and its inputs, for status (commands_pressure.c). */
struct json_object *pressure_status_json(const struct taod *d);
/* Per action kind with a followed-up benefit: [{action, followed,
 * near_zero, why}] (commands_benefit.c). */
struct json_object *benefit_status_json(const struct taod *d);
/* `explain` (commands_explain.c). */
struct json_object *cmd_explain(struct taod *d, struct json_object *req);
/* Whether task @tgid is alive (under the root taod inspects). */
bool task_alive(uint32_t tgid);

#endif
