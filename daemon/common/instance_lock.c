// SPDX-License-Identifier: GPL-2.0
#define _GNU_SOURCE
#include "instance_lock.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <unistd.h>

#include "state_files.h"

/* The holder's pid as it wrote it; 0 when not (yet) written. */
static long holder_pid(int fd)
{
	char buf[32];
	ssize_t n = pread(fd, buf, sizeof(buf) - 1, 0);

	if (n <= 0)
		return 0;
	buf[n] = '\0';
	return strtol(buf, NULL, 10);
}

static void say_held(int fd, const char *path, char *why, size_t why_len)
{
	long pid = holder_pid(fd);

	if (pid > 0)
		snprintf(why, why_len, "another taod (pid %ld) holds %s", pid, path);
	else
		snprintf(why, why_len, "another taod holds %s", path);
}

static int write_pid(int fd)
{
	char buf[32];
	int n = snprintf(buf, sizeof(buf), "%ld\n", (long)getpid());

	if (ftruncate(fd, 0) || pwrite(fd, buf, (size_t)n, 0) != n)
		return -errno;
	return 0;
}

int instance_lock(const char *socket_path, char *why, size_t why_len)
{
	char path[PATH_MAX];
	int fd, r;

	if (snprintf(path, sizeof(path), "%s.lock", socket_path) >= (int)sizeof(path)) {
		snprintf(why, why_len, "lock file path for %s is too long", socket_path);
		return -ENAMETOOLONG;
	}
	r = make_parent_dirs(path, 0755);
	/* Readable by all: operators find the holder's pid there. */
	fd = r ? r : open_private_file(path, O_RDWR, 0644);
	if (fd < 0) {
		snprintf(why, why_len, "lock file %s: %s", path, strerror(-fd));
		return fd;
	}
	if (flock(fd, LOCK_EX | LOCK_NB)) {
		r = -errno;
		if (r == -EWOULDBLOCK)
			say_held(fd, path, why, why_len);
		else
			snprintf(why, why_len, "locking %s: %s", path, strerror(-r));
		close(fd);
		return r;
	}
	r = write_pid(fd);
	if (r) {
		snprintf(why, why_len, "writing our pid to %s: %s", path, strerror(-r));
		close(fd);
		return r;
	}
	return 0; /* fd stays open: the lock lasts as long as we do */
}
