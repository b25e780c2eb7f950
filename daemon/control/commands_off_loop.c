// SPDX-License-Identifier: GPL-2.0
/*
 * Commands answered off the loop: `explain` reads the tasks' maps and their
 * files, which a tenant can hold (its mmap lock, a slow file). The command
 * runs in an offload child (common/offload.h) with a copy of taod's state,
 * the privacy filter applied there too, and the client gets the line it
 * wrote; the loop meanwhile answers pings and ticks.
 */
#include <errno.h>
#include <stdio.h>
#include <json-c/json.h>
#include <stdlib.h>
#include <string.h>

#include "commands.h"
#include "privacy.h"
#include "common/offload.h"
#include "taod/protocol.h"

/* Children kept for root and the actor: other users may not take them. */
#define OFFLOAD_KEPT 2

struct off_loop_call {
	struct taod *d;
	struct peer peer;
	char name[32];
	command_fn run;
	struct json_object *req;
	struct control_deferred *reply;
};

static void call_free(struct off_loop_call *call)
{
	json_object_put(call->req);
	free(call);
}

/* In the child: the whole reply line, as the loop would have sent it. */
static void answer(void *arg, char **out, size_t *len)
{
	struct off_loop_call *call = arg;

	*out = protocol_reply_line(
	    privacy_filter(call->d, &call->peer, call->name, call->run(call->d, call->req)));
	*len = *out ? strlen(*out) : 0;
}

static void answered(void *ctx, const char *out, size_t len, const struct offload_end *end)
{
	struct off_loop_call *call = ctx;
	char why[320];
	char *line = out ? strndup(out, len) : NULL;

	if (!line) {
		offload_end_text(end, why, sizeof(why));
		line = protocol_reply_line(protocol_errorf("%s: %s", call->name, why));
	}
	control_deferred_reply(call->reply, line);
	call_free(call);
}

struct json_object *command_off_loop(struct taod *d, const struct peer *peer, const char *name,
				     command_fn run, struct json_object *req, uint64_t time_ms)
{
	struct off_loop_call *call;
	int r;

	if (!d->event || !d->ctl) /* no loop to keep free (tests): answered here */
		return privacy_filter(d, peer, name, run(d, req));
	if (peer->uid != 0 && offload_running() + OFFLOAD_KEPT >= OFFLOAD_MAX)
		return protocol_errorf("busy: %u requests are being answered; try again",
				       offload_running());
	call = calloc(1, sizeof(*call));
	if (!call)
		return protocol_error("out of memory");
	*call =
	    (struct off_loop_call){.d = d, .peer = *peer, .run = run, .req = json_object_get(req)};
	snprintf(call->name, sizeof(call->name), "%s", name);
	r = offload_start(d->event, time_ms, answer, call, answered, call);
	if (r) {
		call_free(call);
		return r == -EBUSY ? protocol_errorf("busy: %u requests are being answered; "
						     "try again",
						     offload_running())
				   : protocol_errorf("cannot answer %s off the loop: %s", name,
						     strerror(-r));
	}
	/* The child runs already; its end reaches the loop only after this. */
	call->reply = control_server_defer(d->ctl, protocol_wait_s(name) * 1000ULL);
	return NULL;
}
