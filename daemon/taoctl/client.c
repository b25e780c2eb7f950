// SPDX-License-Identifier: GPL-2.0
#include "client.h"

#include <errno.h>
#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <sys/un.h>
#include <unistd.h>

#include "taod/protocol.h"

#define REPLY_MAX (64 << 20)

static int connect_to(const char *path, unsigned wait_s)
{
	struct sockaddr_un sa = {.sun_family = AF_UNIX};
	struct timeval tv = {.tv_sec = wait_s};
	int fd;

	if (strlen(path) >= sizeof(sa.sun_path)) {
		fprintf(stderr, "taoctl: socket path too long: %s\n", path);
		return -EXIT_USAGE;
	}
	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", path);
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -EXIT_FAILED;
	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
	if (!connect(fd, (struct sockaddr *)&sa, sizeof(sa)))
		return fd;
	if (errno == ENOENT || errno == ECONNREFUSED) {
		fprintf(stderr, "taoctl: taod is not running (nothing listens on %s)\n", path);
		close(fd);
		return -EXIT_NOT_RUNNING;
	}
	if (errno == EACCES || errno == EPERM) {
		fprintf(stderr,
			"taoctl: may not connect to %s: %s (run as root, or ask the "
			"admin for access)\n",
			path, strerror(errno));
		close(fd);
		return -EXIT_NO_ACCESS;
	}
	fprintf(stderr, "taoctl: cannot connect to %s: %s\n", path, strerror(errno));
	close(fd);
	return -EXIT_FAILED;
}

static int send_all(int fd, const char *buf, size_t len)
{
	while (len) {
		ssize_t n = send(fd, buf, len, MSG_NOSIGNAL);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return -1;
		buf += n;
		len -= (size_t)n;
	}
	return 0;
}

static char *recv_all(int fd, size_t *len)
{
	size_t cap = 65536, n = 0;
	char *buf = malloc(cap + 1);

	while (buf) {
		ssize_t r;

		if (n == cap) {
			char *bigger = cap < REPLY_MAX ? realloc(buf, cap * 2 + 1) : NULL;

			if (!bigger) {
				free(buf);
				return NULL;
			}
			buf = bigger;
			cap *= 2;
		}
		r = recv(fd, buf + n, cap - n, 0);
		if (r < 0 && errno == EINTR)
			continue;
		/* taod closed with our request unread: what it sent is all there is. */
		if (r < 0 && errno == ECONNRESET)
			break;
		if (r < 0) {
			free(buf);
			return NULL;
		}
		if (r == 0)
			break;
		n += (size_t)r;
	}
	if (buf)
		buf[n] = '\0';
	*len = n;
	return buf;
}

/* The reply object waiting on @fd, or NULL (none, or not a JSON object). */
static struct json_object *read_reply(int fd)
{
	size_t len = 0;
	char *text = recv_all(fd, &len);
	struct json_object *o = text && len ? json_tokener_parse(text) : NULL;

	free(text);
	if (o && !json_object_is_type(o, json_type_object)) {
		json_object_put(o);
		o = NULL;
	}
	return o;
}

int client_call(const char *socket_path, const char *command, struct json_object *args,
		struct json_object **reply)
{
	char *req = protocol_build_request(command, args);
	int fd = connect_to(socket_path, protocol_wait_s(command)), err;

	if (fd < 0 || !req) {
		free(req);
		if (fd >= 0)
			close(fd);
		return fd < 0 ? -fd : EXIT_FAILED;
	}
	err = send_all(fd, req, strlen(req)) ? errno : 0;
	free(req);
	/*
	 * taod refuses a client it has no slot for with one reply line, then
	 * closes: the send meets the close (EPIPE), the reason waits unread.
	 */
	if (!err || err == EPIPE || err == ECONNRESET) {
		shutdown(fd, SHUT_WR);
		*reply = read_reply(fd);
	} else {
		*reply = NULL;
	}
	close(fd);
	if (*reply)
		return EXIT_OK;
	if (err)
		fprintf(stderr, "taoctl: sending to %s: %s\n", socket_path, strerror(err));
	else
		fprintf(stderr, "taoctl: no readable reply from taod (timed out or closed)\n");
	return err ? EXIT_FAILED : EXIT_PROTOCOL;
}
