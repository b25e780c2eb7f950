// SPDX-License-Identifier: GPL-2.0
/*
 * Commands answered off the loop: `explain` reads the tasks' maps and their
 * files, which a tenant can hold (its mmap lock, a slow file); and for a
 * reader who does not see all, the commands whose reply is filtered row by
 * row (10,000 cgroups: half a second of work to answer "[]"). The command
 * runs in an offload child (common/offload.h) with a copy of taod's state,
 * the privacy filter applied there too, and the client gets the line it
 * wrote; the loop meanwhile answers pings and ticks. A user other than
 * root has one such child at a time, and USER_MS_PER_S of their time a
 * second: however many clients it opens, it cannot make taod's work for it
 * unbounded.
 */
#include <errno.h>
#include <stdio.h>
#include <json-c/json.h>
#include <stdlib.h>
#include <string.h>

#include "commands.h"
#include "privacy.h"
#include "common/clock.h"
#include "common/offload.h"
#include "taod/protocol.h"

/* Children kept for root and the actor: other users may not take them. */
#define OFFLOAD_KEPT 2
/* What one user other than root may cost taod, in children's time per second. */
#define USER_MS_PER_S 500
#define USERS_KEPT    64 /* users whose spending is remembered: the oldest is forgotten */

/* One user's children's time in the current second. */
struct user_spend {
	uid_t uid;
	uint64_t second, ms;
};

static struct user_spend spends[USERS_KEPT];
static uid_t running_uids[OFFLOAD_MAX]; /* 0 (root, never held back): a free slot */

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

static struct user_spend *spend_of(uid_t uid, uint64_t second)
{
	struct user_spend *oldest = &spends[0];

	for (size_t i = 0; i < USERS_KEPT; i++) {
		if (spends[i].ms && spends[i].uid == uid)
			return &spends[i];
		if (spends[i].second < oldest->second)
			oldest = &spends[i];
	}
	*oldest = (struct user_spend){.uid = uid, .second = second};
	return oldest;
}

/* Root is never held back; other users one child at a time, within their time. */
static const char *user_refusal(const struct peer *peer, char *buf, size_t len)
{
	uint64_t second = monotonic_ms() / 1000;
	struct user_spend *s;

	if (peer->uid == 0)
		return NULL;
	if (offload_running() + OFFLOAD_KEPT >= OFFLOAD_MAX)
		return "busy: the requests of other users are being answered; try again";
	for (int i = 0; i < OFFLOAD_MAX; i++)
		if (running_uids[i] == peer->uid)
			return "busy: a request of this user is being answered; try again";
	s = spend_of(peer->uid, second);
	if (s->second == second && s->ms >= USER_MS_PER_S) {
		snprintf(buf, len,
			 "busy: uid %u's requests took %llu ms of taod's time this second "
			 "(at most %d); try again",
			 (unsigned)peer->uid, (unsigned long long)s->ms, USER_MS_PER_S);
		return buf;
	}
	return NULL;
}

static void user_running(uid_t uid, bool on)
{
	for (int i = 0; i < OFFLOAD_MAX; i++)
		if (running_uids[i] == (on ? 0 : uid)) {
			running_uids[i] = on ? uid : 0;
			return;
		}
}

/* Charges the child's time to its user, this second's. */
static void user_spent(uid_t uid, uint64_t ms)
{
	uint64_t second = monotonic_ms() / 1000;
	struct user_spend *s;

	if (uid == 0)
		return;
	user_running(uid, false);
	s = spend_of(uid, second);
	if (s->second != second)
		*s = (struct user_spend){.uid = uid, .second = second};
	s->ms += ms ? ms : 1;
}

static void answered(void *ctx, const char *out, size_t len, const struct offload_end *end)
{
	struct off_loop_call *call = ctx;
	char why[320];
	char *line = out ? strndup(out, len) : NULL;

	user_spent(call->peer.uid, end->took_ms);
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
	const char *no;
	char why[160];
	int r;

	if (!d->event || !d->ctl) /* no loop to keep free (tests): answered here */
		return privacy_filter(d, peer, name, run(d, req));
	no = user_refusal(peer, why, sizeof(why));
	if (no)
		return protocol_error(no);
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
	if (peer->uid != 0)
		user_running(peer->uid, true);
	return NULL;
}
