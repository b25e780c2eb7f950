// SPDX-License-Identifier: GPL-2.0
/* The dry-run backend: says what it would do, touches nothing. */
#include <string.h>

#include "act_backend.h"

static void would(const struct act_ctx *c, const struct action_request *req, uint64_t budget,
		  struct act_outcome *o)
{
	(void)c;
	act_outcome_set(o, RESULT_DRY_RUN, 0, "dry-run backend: would %s %s (pid %d, %llu bytes)",
			action_kind_name(req->kind), req->cgroup[0] ? req->cgroup : "zones",
			(int)req->pid, (unsigned long long)budget);
}

static int no_stats(const struct act_ctx *c, struct act_stats *out)
{
	(void)c;
	memset(out, 0, sizeof(*out));
	return 0;
}

const struct act_backend_ops backend_dry_run_ops = {
    .name = "dry-run",
    .op =
	{
	    [ACTION_RESTRICT] = would,
	    [ACTION_GRANT] = would,
	    [ACTION_SHATTER] = would,
	    [ACTION_COLLAPSE] = would,
	    [ACTION_RESIZE_ZONES] = would,
	},
    .read_stats = no_stats,
};
