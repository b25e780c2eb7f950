// SPDX-License-Identifier: GPL-2.0
#define _GNU_SOURCE
#include "state_files.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "file_kind.h"
#include "rootfs.h"

int make_parent_dirs(const char *path, mode_t mode)
{
	char dir[PATH_MAX];

	if (snprintf(dir, sizeof(dir), "%s", path) >= (int)sizeof(dir))
		return -ENAMETOOLONG;
	for (char *p = dir + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = '\0';
		if (mkdir(dir, mode) && errno != EEXIST)
			return -errno;
		*p = '/';
	}
	return 0;
}

int open_private_file(const char *path, int flags, mode_t mode)
{
	struct stat st;
	/* O_NONBLOCK: a FIFO planted at @path must not hang the event loop. */
	int e = 0, fd = open(path, flags | O_CREAT | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC, mode);

	if (fd < 0)
		return -errno;
	/* Not a FIFO or device someone placed there; and no wider than @mode. */
	if (fstat(fd, &st))
		e = errno;
	else if (!S_ISREG(st.st_mode))
		e = EINVAL;
	else if (fchmod(fd, st.st_mode & mode & 07777))
		e = errno;
	if (!e)
		return fd;
	close(fd);
	return -e;
}

int replace_file_atomically(const char *path, mode_t mode, file_writer_fn fn, const void *ctx)
{
	char tmp[PATH_MAX];
	FILE *f;
	int fd, r;

	if (snprintf(tmp, sizeof(tmp), "%s.XXXXXX", path) >= (int)sizeof(tmp))
		return -ENAMETOOLONG;
	fd = mkostemp(tmp, O_CLOEXEC); /* O_EXCL: never an existing name or symlink */
	if (fd < 0)
		return -errno;
	f = fchmod(fd, mode) ? NULL : fdopen(fd, "w");
	if (!f) {
		r = -errno;
		close(fd);
		unlink(tmp);
		return r;
	}
	errno = 0;
	r = fn(f, ctx);
	/*
	 * A writer's -EIO is a stream error: the errno of the write that failed
	 * (ENOSPC) says more, whether that write was inside the writer or is
	 * the flush at close.
	 */
	if (r == -EIO && errno)
		r = -errno;
	if (fclose(f) && (!r || r == -EIO))
		r = -errno;
	if (!r && rename(tmp, path))
		r = -errno;
	if (r)
		unlink(tmp);
	return r;
}

/* Whether taod may trust what is in @st: its own, and no one else may write to it. */
static int trusted(const struct stat *st, const char *what, const char *path, char *why, size_t len)
{
	if (st->st_uid != geteuid()) {
		snprintf(why, len, "%s %s is owned by uid %u, not taod's %u", what, path,
			 (unsigned)st->st_uid, (unsigned)geteuid());
		return -EPERM;
	}
	if (st->st_mode & 022) {
		snprintf(why, len, "%s %s is writable by others (mode %04o)", what, path,
			 (unsigned)(st->st_mode & 07777));
		return -EPERM;
	}
	return 0;
}

int private_dir_open(const char *path, char *why, size_t len)
{
	struct stat st;
	int r, fd = open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);

	if (fd < 0) {
		r = -errno;
		snprintf(why, len, "%s: %s", path, strerror(-r));
		return r;
	}
	r = fstat(fd, &st) ? -errno : trusted(&st, "directory", path, why, len);
	if (!r)
		return fd;
	close(fd);
	return r;
}

ssize_t private_file_read_at(int dirfd, const char *name, char *buf, size_t len, char *why,
			     size_t why_len)
{
	struct stat st;
	ssize_t r;
	/* O_NONBLOCK: a FIFO must not hang the loop before fstat tells what it is. */
	int fd = openat(dirfd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);

	if (fd < 0) {
		r = -errno;
		snprintf(why, why_len, "%s: %s", name, strerror(errno));
		return r;
	}
	if (fstat(fd, &st))
		r = -errno;
	else if (!S_ISREG(st.st_mode))
		r = -EINVAL;
	else
		r = trusted(&st, "file", name, why, why_len);
	if (r == -EINVAL)
		snprintf(why, why_len, "%s is %s, not a regular file", name,
			 file_kind_name(st.st_mode));
	if (!r)
		r = read_fd(fd, buf, len);
	close(fd);
	return r;
}
