/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Requests waiting for the action under way off the loop (actor.c): a
 * bounded FIFO of copies, each with whom to tell when it is done. A request
 * for what is already waiting or under way (same kind and cgroup) is not
 * queued twice. Defined in action_queue.c.
 */
#ifndef TAOD_ACTION_QUEUE_H
#define TAOD_ACTION_QUEUE_H

#include <stdbool.h>

#include "taod/action.h"

/* More than this waiting: a new request is refused (rate-limited). */
#define ACTION_QUEUE_MAX 8

typedef void (*action_done_fn)(void *ctx, const struct action_record *rec);

/* A request with its own copy of the cgroup path, and its caller. */
struct queued_action {
	struct action_request req; /* req.cgroup is @cgroup */
	char *cgroup;
	action_done_fn done;
	void *ctx;
};

struct action_queue {
	struct queued_action v[ACTION_QUEUE_MAX];
	unsigned head, n;
};

/* Copies @req into @q; 0, -ENOSPC when full, -ENOMEM. */
int action_queue_push(struct action_queue *q, const struct action_request *req, action_done_fn done,
		      void *ctx);
/* Takes the oldest into *@out (the caller frees out->cgroup); false when empty. */
bool action_queue_pop(struct action_queue *q, struct queued_action *out);
/* Whether a request of @kind for @cgroup is waiting. */
bool action_queue_has(const struct action_queue *q, enum action_kind kind, const char *cgroup);

#endif
