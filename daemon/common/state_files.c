// SPDX-License-Identifier: GPL-2.0
#define _GNU_SOURCE
#include "state_files.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

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
