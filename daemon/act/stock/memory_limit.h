/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Restrict on a stock kernel ([enforce] stock_restrict = yes): the
 * offending cgroup's memory.high (v2) or memory.soft_limit_in_bytes (v1)
 * is lowered to stock_restrict_percent of its usage for stock_restrict_for,
 * and put back by grant, when the time is up, or when taod exits or starts
 * again after a crash. What was there before is kept in a file per cgroup
 * under stock_restrict_state (named by the cgroup's id) before the limit
 * is lowered, so a crash never loses it. A limit someone else changed
 * since is left as they set it.
 */
#ifndef TAOD_MEMORY_LIMIT_H
#define TAOD_MEMORY_LIMIT_H

#include <stdbool.h>

#include "act/act_backend.h"

/* act_op_fn: lowers the limit (or keeps a lower one), saving the original first. */
void memory_limit_restrict(const struct act_ctx *c, const struct action_request *req,
			   uint64_t budget, struct act_outcome *o);
/* act_op_fn: puts back what restrict lowered; done, touching nothing, when it lowered nothing. */
void memory_limit_grant(const struct act_ctx *c, const struct action_request *req, uint64_t budget,
			struct act_outcome *o);
/* act_backend_ops.withheld: restrict and grant are off unless stock_restrict = yes. */
const char *memory_limit_withheld(const struct act_ctx *c, enum action_kind k);
/* act_backend_ops.expire: puts back the restrictions whose time is up (@all: every one). */
int memory_limit_expire(const struct act_ctx *c, bool all, act_restored_fn fn, void *ctx);

#endif
