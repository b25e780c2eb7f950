// SPDX-License-Identifier: GPL-2.0
/* The action sink used until act is connected: the journal only. */
#include "taod/decide.h"
#include "taod/log.h"

void action_sink_log(void *ctx, const struct action_request *req)
{
	(void)ctx;
	log_notice("decide: %s %s pid %d (policy %s%s, %llu bytes): %s",
		   action_kind_name(req->kind), req->cgroup, (int)req->pid, req->policy,
		   req->dry_run ? ", dry run" : "", (unsigned long long)req->bytes, req->evidence);
}
