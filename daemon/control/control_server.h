/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The control socket: a Unix stream socket, one JSON request per
 * connection, newline-terminated, answered with one JSON reply. See
 * docs/protocol.md.
 */
#ifndef TAOD_CONTROL_SERVER_H
#define TAOD_CONTROL_SERVER_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>
#include <systemd/sd-event.h>

#define CONTROL_MAX_REQUEST 65536
#define CONTROL_TIMEOUT_MS  5000

struct json_object;
struct control_server;

struct peer {
	pid_t pid;
	uid_t uid;
	gid_t gid;
	/* Root, or in the readers' group when it connected: sees every
	 * tenant's rows (privacy.h); anyone else sees only its own. */
	bool sees_all;
};

/* Returns the reply (owned by the caller) for one parsed request. */
typedef struct json_object *(*control_handler_fn)(void *ctx, const struct peer *peer,
						  struct json_object *request);

/*
 * Listens on the socket systemd passed (socket activation) or binds
 * @path with @mode and group @group ((gid_t)-1: root's). Peers in
 * @group, primary or supplementary, see all (struct peer). Returns 0 or
 * -errno.
 */
int control_server_start(struct control_server **out, sd_event *e, const char *path, unsigned mode,
			 gid_t group, control_handler_fn handler, void *ctx);
void control_server_stop(struct control_server *s);
unsigned control_server_clients(const struct control_server *s);
bool control_server_activated(const struct control_server *s);
/*
 * A reply given later, when work off the loop (offload.h) ends: from inside
 * a handler, control_server_defer() takes the request's client aside (it
 * waits up to @timeout_ms, its socket unwatched meanwhile) and the handler
 * returns NULL. NULL when called outside a handler: reply now.
 */
struct control_deferred;
struct control_deferred *control_server_defer(struct control_server *s, uint64_t timeout_ms);
/*
 * Sends @line (a reply line, owned; NULL: none, the client is closed) to
 * the client if it is still connected, and frees @h: call it exactly once.
 */
void control_deferred_reply(struct control_deferred *h, char *line);

/*
 * At most @bytes of replies may wait, unsent, for clients other than
 * root; past it they are told the server is busy. Root is never limited.
 */
void control_server_set_reply_memory(struct control_server *s, size_t bytes);

#endif
