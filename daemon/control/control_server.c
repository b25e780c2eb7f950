// SPDX-License-Identifier: GPL-2.0
#define _GNU_SOURCE
#include "control_server.h"

#include <assert.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <systemd/sd-daemon.h>
#include <unistd.h>

#include "common/file_kind.h"
#include "common/json_fields.h"
#include "common/log.h"
#include "taod/protocol.h"
#include "common/state_files.h"

/*
 * Admission: credentials are read before a slot is taken. Other users
 * share all but ROOT_RESERVED slots, at most PER_UID_MAX each, so no
 * unprivileged user can hold every slot and lock root out.
 */
#define MAX_CLIENTS   64
#define ROOT_RESERVED 8
#define PER_UID_MAX   16

struct control_server {
	sd_event *event;
	sd_event_source *listen_src;
	int fd;
	bool activated; /* fd came from systemd */
	gid_t group;	/* readers who see all; (gid_t)-1: none but root */
	char path[sizeof(((struct sockaddr_un *)0)->sun_path)];
	control_handler_fn handler;
	void *ctx;
	unsigned clients;
	struct client *list;	/* open clients, for the per-uid count */
	size_t reply_memory;	/* budget of replies held for non-root clients */
	size_t held;		/* bytes of such replies held now */
	struct client *current; /* whose request a handler is answering */
};

struct control_deferred {
	struct client *c; /* NULL once the client is gone */
};

struct client {
	struct control_server *srv;
	struct client *next, **pprev;
	int fd;
	struct peer peer;
	sd_event_source *io, *timer;
	char in[CONTROL_MAX_REQUEST + 1];
	size_t in_len;
	char *out;
	size_t out_len, out_off;
	size_t held;			   /* out_len, when counted against the reply budget */
	struct control_deferred *deferred; /* a reply to come */
};

static void client_close(struct client *c)
{
	if (c->deferred)
		c->deferred->c = NULL;
	if (c->srv->current == c)
		c->srv->current = NULL;
	sd_event_source_disable_unref(c->io);
	sd_event_source_disable_unref(c->timer);
	close(c->fd);
	free(c->out);
	c->srv->held -= c->held;
	c->srv->clients--;
	if (c->next)
		c->next->pprev = c->pprev;
	*c->pprev = c->next;
	free(c);
}

static int client_write(struct client *c)
{
	while (c->out_off < c->out_len) {
		ssize_t n = send(c->fd, c->out + c->out_off, c->out_len - c->out_off,
				 MSG_NOSIGNAL | MSG_DONTWAIT);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && errno == EAGAIN)
			return sd_event_source_set_io_events(c->io, EPOLLOUT);
		if (n < 0)
			return -errno;
		c->out_off += (size_t)n;
	}
	return 1; /* all sent */
}

/*
 * A reply too big for what other users' clients may hold becomes a short
 * error: clients that never read would otherwise pin taod's memory, up to
 * the slots they may hold times the largest reply.
 */
static char *within_reply_memory(struct client *c, char *line)
{
	struct control_server *srv = c->srv;
	size_t n = line ? strlen(line) : 0;

	if (!line || c->peer.uid == 0)
		return line;
	if (srv->held <= srv->reply_memory && n <= srv->reply_memory - srv->held) {
		c->held = n;
		srv->held += n;
		return line;
	}
	free(line);
	return protocol_reply_line(
	    protocol_errorf("busy: replies waiting for other users' clients would exceed %zu bytes",
			    srv->reply_memory));
}

static void client_reply(struct client *c, struct json_object *reply)
{
	c->out = within_reply_memory(c, protocol_reply_line(reply));
	c->out_len = c->out ? strlen(c->out) : 0;
}

static void client_handle(struct client *c)
{
	struct json_object *req = NULL;
	char err[160];

	c->in[c->in_len] = '\0';
	if (protocol_parse_request(c->in, &req, err, sizeof(err))) {
		client_reply(c, protocol_error(err));
	} else {
		struct json_object *reply;

		c->srv->current = c;
		reply = c->srv->handler(c->srv->ctx, &c->peer, req);
		c->srv->current = NULL;
		/* Deferred: the reply comes later, or came already. */
		if (reply || (!c->deferred && !c->out))
			client_reply(c, reply);
	}
	json_object_put(req);
}

struct control_deferred *control_server_defer(struct control_server *s, uint64_t timeout_ms)
{
	struct client *c = s ? s->current : NULL;
	uint64_t now;

	if (!c || c->deferred || !(c->deferred = calloc(1, sizeof(*c->deferred))))
		return NULL;
	c->deferred->c = c;
	sd_event_now(s->event, CLOCK_MONOTONIC, &now);
	sd_event_source_set_time(c->timer, now + timeout_ms * 1000);
	return c->deferred;
}

void control_deferred_reply(struct control_deferred *h, char *line)
{
	struct client *c = h ? h->c : NULL;

	free(h);
	if (!c) {
		free(line);
		return;
	}
	c->deferred = NULL;
	c->out = within_reply_memory(c, line);
	c->out_len = c->out ? strlen(c->out) : 0;
	if (c->srv->current == c) /* within its handler: on_client_io sends it */
		return;
	sd_event_source_set_enabled(c->io, SD_EVENT_ON);
	if (!c->out || client_write(c) != 0)
		client_close(c);
}

static bool request_complete(const struct client *c)
{
	return memchr(c->in, '\n', c->in_len) != NULL;
}

static int client_read(struct client *c)
{
	for (;;) {
		ssize_t n =
		    recv(c->fd, c->in + c->in_len, CONTROL_MAX_REQUEST - c->in_len, MSG_DONTWAIT);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && errno == EAGAIN)
			return 0;
		if (n < 0)
			return -errno;
		c->in_len += (size_t)n;
		if (n == 0 || request_complete(c))
			return 1;
		if (c->in_len == CONTROL_MAX_REQUEST)
			return -EMSGSIZE;
	}
}

static int on_client_io(sd_event_source *s, int fd, uint32_t revents, void *user)
{
	struct client *c = user;
	int r;

	(void)s;
	(void)fd;
	if (c->out) {
		r = client_write(c);
		if (r != 0)
			client_close(c); /* done or peer gone */
		return 0;
	}
	r = (revents & (EPOLLIN | EPOLLHUP)) ? client_read(c) : 0;
	if (r == 0)
		return 0;
	if (r == -EMSGSIZE) {
		char msg[96];

		snprintf(msg, sizeof(msg), "request larger than %d bytes", CONTROL_MAX_REQUEST);
		client_reply(c, protocol_error(msg));
	} else if (r < 0) {
		client_close(c);
		return 0;
	} else {
		client_handle(c);
	}
	if (c->deferred && !c->out) { /* its socket is not read until the reply */
		sd_event_source_set_enabled(c->io, SD_EVENT_OFF);
		return 0;
	}
	if (!c->out || client_write(c) != 0)
		client_close(c);
	return 0;
}

static int on_client_timeout(sd_event_source *s, uint64_t usec, void *user)
{
	struct client *c = user;

	(void)s;
	(void)usec;
	log_debug("control client pid %d timed out", (int)c->peer.pid);
	client_close(c);
	return 0;
}

static int client_add(struct control_server *srv, int fd, const struct peer *peer)
{
	struct client *c = calloc(1, sizeof(*c));
	uint64_t now;

	if (!c) {
		close(fd);
		return -ENOMEM;
	}
	c->srv = srv;
	c->fd = fd;
	c->peer = *peer;
	c->next = srv->list;
	if (c->next)
		c->next->pprev = &c->next;
	c->pprev = &srv->list;
	srv->list = c;
	srv->clients++;
	sd_event_now(srv->event, CLOCK_MONOTONIC, &now);
	if (sd_event_add_io(srv->event, &c->io, fd, EPOLLIN, on_client_io, c) < 0 ||
	    sd_event_add_time(srv->event, &c->timer, CLOCK_MONOTONIC,
			      now + CONTROL_TIMEOUT_MS * 1000ULL, 0, on_client_timeout, c) < 0) {
		client_close(c);
		return -ENOMEM;
	}
	return 0;
}

/*
 * Whether the peer of @fd had @gid among its supplementary groups when it
 * connected (SO_PEERGROUPS: never /proc/PID, whose pid may name another
 * process by now). Unknown is no.
 */
static bool peer_has_group(int fd, gid_t gid)
{
	gid_t few[64], *groups = few;
	socklen_t len = sizeof(few);
	bool found = false;

	/* ERANGE: len now says how much the list needs. */
	if (getsockopt(fd, SOL_SOCKET, SO_PEERGROUPS, few, &len) &&
	    (errno != ERANGE || !(groups = malloc(len)) ||
	     getsockopt(fd, SOL_SOCKET, SO_PEERGROUPS, groups, &len)))
		len = 0;
	for (size_t i = 0; i < len / sizeof(gid_t); i++)
		found |= groups[i] == gid;
	if (groups != few)
		free(groups);
	return found;
}

static void peer_of(const struct control_server *srv, int fd, struct peer *p)
{
	struct ucred cred;
	socklen_t len = sizeof(cred);
	bool in_group;

	if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &len)) {
		*p = (struct peer){.uid = (uid_t)-1}; /* unknown: treated as unprivileged */
		return;
	}
	in_group =
	    srv->group != (gid_t)-1 && (cred.gid == srv->group || peer_has_group(fd, srv->group));
	*p = (struct peer){.pid = cred.pid,
			   .uid = cred.uid,
			   .gid = cred.gid,
			   .sees_all = cred.uid == 0 || in_group};
}

static unsigned clients_of(const struct control_server *srv, uid_t uid)
{
	unsigned n = 0;

	for (const struct client *c = srv->list; c; c = c->next)
		n += c->peer.uid == uid;
	return n;
}

/* NULL when @p may take a slot, else why not. */
static const char *admission_refusal(const struct control_server *srv, const struct peer *p)
{
	if (srv->clients >= MAX_CLIENTS)
		return "too many clients";
	if (p->uid == 0)
		return NULL;
	if (srv->clients >= MAX_CLIENTS - ROOT_RESERVED)
		return "too many clients (the rest are kept for root)";
	if (clients_of(srv, p->uid) >= PER_UID_MAX)
		return "too many clients of this user";
	return NULL;
}

/* One best-effort line so the client knows why, then close: never blocks. */
static void refuse(int fd, const char *why)
{
	char *line = protocol_reply_line(protocol_error(why));

	if (!line || send(fd, line, strlen(line), MSG_NOSIGNAL | MSG_DONTWAIT) < 0)
		log_debug("control: refusal not sent: %s", line ? strerror(errno) : "no memory");
	free(line);
	close(fd);
}

static int on_accept(sd_event_source *s, int fd, uint32_t revents, void *user)
{
	struct control_server *srv = user;

	(void)s;
	(void)revents;
	for (;;) {
		int cfd = accept4(fd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
		struct peer peer;
		const char *why;

		if (cfd < 0)
			break;
		peer_of(srv, cfd, &peer);
		why = admission_refusal(srv, &peer);
		if (why) {
			refuse(cfd, why); /* shed load rather than queue without bound */
			continue;
		}
		client_add(srv, cfd, &peer);
	}
	return 0;
}

static int inherited_socket(void)
{
	int n = sd_listen_fds(1);

	if (n < 1)
		return -1;
	if (n > 1)
		log_warn("systemd passed %d sockets; using the first", n);
	if (sd_is_socket_unix(SD_LISTEN_FDS_START, SOCK_STREAM, 1, NULL, 0) <= 0) {
		log_warn("inherited fd %d is not a listening Unix stream socket",
			 SD_LISTEN_FDS_START);
		return -1;
	}
	/* A blocking listener would stall the event loop on a vanished client. */
	if (fcntl(SD_LISTEN_FDS_START, F_SETFL, O_NONBLOCK) < 0) {
		log_errno(LOG_WARNING, -errno, "inherited socket: O_NONBLOCK");
		return -1;
	}
	return SD_LISTEN_FDS_START;
}

/* Whether some program accepts connections on the socket at @sa now. */
static bool socket_in_use(const struct sockaddr_un *sa)
{
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	bool used;

	if (fd < 0)
		return false;
	/* EAGAIN: a listener whose backlog is full is still a listener. */
	used = !connect(fd, (const struct sockaddr *)sa, sizeof(*sa)) || errno == EAGAIN;
	close(fd);
	return used;
}

/*
 * Clears the way for bind(): only a socket nobody listens on is removed
 * (the one a previous taod left; the instance lock says none runs now).
 * Anything else at @path is the operator's or another program's: refused,
 * said with what is there. 0 or -errno.
 */
static int clear_stale_socket(const struct sockaddr_un *sa)
{
	const char *path = sa->sun_path;
	struct stat st;

	if (lstat(path, &st))
		return errno == ENOENT ? 0 : log_errno(LOG_ERR, -errno, path);
	if (!S_ISSOCK(st.st_mode)) {
		log_err("control socket %s: %s is there, not a socket; taod replaces only a "
			"socket: remove it or set another [control] socket",
			path, file_kind_name(st.st_mode));
		return -EEXIST;
	}
	if (socket_in_use(sa)) {
		log_err("control socket %s: another program listens on it; taod replaces only "
			"a socket nobody listens on",
			path);
		return -EADDRINUSE;
	}
	if (unlink(path) && errno != ENOENT)
		return log_errno(LOG_ERR, -errno, path);
	return 0;
}

static int bind_socket(struct control_server *srv, const char *path, unsigned mode)
{
	struct sockaddr_un sa = {.sun_family = AF_UNIX};
	int fd, r;

	if (strlen(path) >= sizeof(sa.sun_path))
		return -ENAMETOOLONG;
	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", path);
	snprintf(srv->path, sizeof(srv->path), "%s", path);
	r = make_parent_dirs(path, 0755);
	if (r)
		return r;
	r = clear_stale_socket(&sa);
	if (r)
		return r;
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	/* Group before mode: no moment where the group's mode bits are root's. */
	if (bind(fd, (struct sockaddr *)&sa, sizeof(sa)) ||
	    (srv->group != (gid_t)-1 && chown(path, (uid_t)-1, srv->group)) || chmod(path, mode) ||
	    listen(fd, 64)) {
		int e = errno;

		close(fd);
		return -e;
	}
	return fd;
}

int control_server_start(struct control_server **out, sd_event *e, const char *path, unsigned mode,
			 gid_t group, control_handler_fn handler, void *ctx)
{
	assert(out && e && path && handler);

	struct control_server *srv = calloc(1, sizeof(*srv));
	int r;

	if (!srv)
		return -ENOMEM;
	srv->event = e;
	srv->handler = handler;
	srv->group = group;
	srv->reply_memory = 64u << 20;
	srv->ctx = ctx;
	srv->fd = inherited_socket();
	srv->activated = srv->fd >= 0;
	if (!srv->activated)
		srv->fd = bind_socket(srv, path, mode);
	if (srv->fd < 0) {
		r = srv->fd;
		free(srv);
		return r;
	}
	r = sd_event_add_io(e, &srv->listen_src, srv->fd, EPOLLIN, on_accept, srv);
	if (r < 0) {
		control_server_stop(srv);
		return r;
	}
	*out = srv;
	return 0;
}

void control_server_stop(struct control_server *s)
{
	if (!s)
		return;
	sd_event_source_disable_unref(s->listen_src);
	if (s->fd >= 0)
		close(s->fd);
	if (!s->activated && s->path[0])
		unlink(s->path);
	free(s);
}

unsigned control_server_clients(const struct control_server *s)
{
	return s->clients;
}

bool control_server_activated(const struct control_server *s)
{
	return s->activated;
}

void control_server_set_reply_memory(struct control_server *s, size_t bytes)
{
	s->reply_memory = bytes;
}
