// SPDX-License-Identifier: GPL-2.0
/* Opening a file a tenant controls without blocking (tenant_file.h). */
#define _GNU_SOURCE
#include "tenant_file.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/magic.h>
#include <linux/openat2.h>
#include <stdio.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/syscall.h>
#include <unistd.h>

#ifndef FUSE_SUPER_MAGIC
#define FUSE_SUPER_MAGIC 0x65735546
#endif

/* An O_PATH descriptor of @path inside @root_fd; the last step no symlink. */
static int open_path_in(int root_fd, const char *path)
{
	struct open_how how = {.flags = O_PATH | O_NOFOLLOW | O_CLOEXEC,
			       .resolve = RESOLVE_IN_ROOT | RESOLVE_NO_MAGICLINKS};
	long r = syscall(SYS_openat2, root_fd, path, &how, sizeof(how));
	int fd;

	if (r >= 0 || (errno != ENOSYS && errno != EPERM))
		return r >= 0 ? (int)r : -errno;
	/* No openat2 (or a seccomp filter refuses it): a relative walk, which
	 * an absolute symlink may leave; the checks below still hold. */
	while (*path == '/')
		path++;
	fd = openat(root_fd, *path ? path : ".", O_PATH | O_NOFOLLOW | O_CLOEXEC);
	return fd < 0 ? -errno : fd;
}

/* 0 when @fd is a regular file of at most @max on a filesystem that answers. */
static int readable_here(int fd, uint64_t max)
{
	struct statfs fs;
	struct stat st;

	if (fstat(fd, &st))
		return -errno;
	if (!S_ISREG(st.st_mode))
		return -EINVAL;
	if ((uint64_t)st.st_size > max)
		return -EFBIG;
	if (fstatfs(fd, &fs))
		return -errno;
	return fs.f_type == FUSE_SUPER_MAGIC ? -EREMOTE : 0;
}

/* An O_PATH descriptor of @path: in @root, or the kernel's link followed. */
static int open_path(const char *root, const char *path)
{
	int root_fd, fd;

	if (!root) {
		fd = open(path, O_PATH | O_CLOEXEC);
		return fd < 0 ? -errno : fd;
	}
	root_fd = open(root, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (root_fd < 0)
		return -errno;
	fd = open_path_in(root_fd, path);
	close(root_fd);
	return fd;
}

int tenant_file_open(const char *root, const char *path, uint64_t max_bytes)
{
	int fd = open_path(root, path), r, rd;
	char self[64];

	if (fd < 0)
		return fd;
	r = readable_here(fd, max_bytes);
	if (r) {
		close(fd);
		return r;
	}
	/* Reopened through the checked descriptor: the same file, now readable. */
	snprintf(self, sizeof(self), "/proc/self/fd/%d", fd);
	rd = open(self, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
	r = rd < 0 ? -errno : rd;
	close(fd);
	return r;
}
