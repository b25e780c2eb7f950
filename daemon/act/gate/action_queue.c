// SPDX-License-Identifier: GPL-2.0
/* The requests waiting for the action under way (action_queue.h). */
#include "action_queue.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

int action_queue_push(struct action_queue *q, const struct action_request *req, action_done_fn done,
		      void *ctx)
{
	struct queued_action *a;
	char *cgroup;

	if (q->n == ACTION_QUEUE_MAX)
		return -ENOSPC;
	cgroup = strdup(req->cgroup ? req->cgroup : "");
	if (!cgroup)
		return -ENOMEM;
	a = &q->v[(q->head + q->n++) % ACTION_QUEUE_MAX];
	*a = (struct queued_action){.req = *req, .cgroup = cgroup, .done = done, .ctx = ctx};
	a->req.cgroup = cgroup;
	return 0;
}

bool action_queue_pop(struct action_queue *q, struct queued_action *out)
{
	if (!q->n)
		return false;
	*out = q->v[q->head];
	q->head = (q->head + 1) % ACTION_QUEUE_MAX;
	q->n--;
	return true;
}

bool action_queue_has(const struct action_queue *q, enum action_kind kind, const char *cgroup)
{
	for (unsigned i = 0; i < q->n; i++) {
		const struct queued_action *a = &q->v[(q->head + i) % ACTION_QUEUE_MAX];

		if (a->req.kind == kind && !strcmp(a->cgroup, cgroup ? cgroup : ""))
			return true;
	}
	return false;
}
