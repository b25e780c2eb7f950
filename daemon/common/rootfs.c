// SPDX-License-Identifier: GPL-2.0
#include "rootfs.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "log.h"

static char root_prefix[PATH_MAX] = "";

void rootfs_set(const char *prefix)
{
	size_t n;

	snprintf(root_prefix, sizeof(root_prefix), "%s", prefix ? prefix : "");
	n = strlen(root_prefix);
	while (n > 0 && root_prefix[n - 1] == '/')
		root_prefix[--n] = '\0'; /* "/" becomes "" */
}

const char *rootfs_get(void)
{
	return root_prefix[0] ? root_prefix : "/";
}

int rootfs_path(char *buf, size_t len, const char *abs_path)
{
	size_t plen = strlen(root_prefix);
	int n;

	if (plen && !strncmp(abs_path, root_prefix, plen) &&
	    (abs_path[plen] == '/' || !abs_path[plen]))
		n = snprintf(buf, len, "%s", abs_path);
	else
		n = snprintf(buf, len, "%s%s", root_prefix, abs_path);
	return (n < 0 || (size_t)n >= len) ? -ENAMETOOLONG : 0;
}

ssize_t read_fd(int fd, char *buf, size_t len)
{
	size_t off = 0;

	if (len == 0)
		return -EINVAL;
	while (off < len - 1) {
		ssize_t r = read(fd, buf + off, len - 1 - off);

		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			return -errno;
		if (r == 0)
			break;
		off += (size_t)r;
	}
	buf[off] = '\0';
	return (ssize_t)off;
}

ssize_t read_file_at(int dirfd, const char *name, char *buf, size_t len)
{
	ssize_t r;
	int fd;

	if (len == 0)
		return -EINVAL;
	fd = openat(dirfd, name, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	r = read_fd(fd, buf, len);
	close(fd);
	return r;
}

ssize_t read_file(const char *path, char *buf, size_t len)
{
	return read_file_at(AT_FDCWD, path, buf, len);
}

ssize_t rootfs_read(const char *abs_path, char *buf, size_t len)
{
	char path[PATH_MAX];
	int r = rootfs_path(path, sizeof(path), abs_path);

	return r ? r : read_file(path, buf, len);
}

static write_hook_fn write_hook;
static void *write_hook_ctx;

void rootfs_set_write_hook(write_hook_fn fn, void *ctx)
{
	write_hook = fn;
	write_hook_ctx = ctx;
}

static int write_once(int dirfd, const char *name, const char *shown, const char *s);

/* Every write is logged at debug level: fixture tests check each path exists. */
int write_file_at(int dirfd, const char *name, const char *shown, const char *s)
{
	int r = write_once(dirfd, name, shown, s);

	log_debug("write %s: %s", shown, r ? strerror(-r) : "ok");
	return r;
}

static int write_once(int dirfd, const char *name, const char *shown, const char *s)
{
	size_t n = strlen(s);
	ssize_t w;
	int fd, r = write_hook ? write_hook(shown, s, write_hook_ctx) : 0;

	if (r)
		return r < 0 ? r : 0;
	/* O_TRUNC is a no-op on sysfs, cgroupfs and debugfs; it keeps a regular
	 * file (a fixture tree) holding exactly the last value written. */
	fd = openat(dirfd, name, O_WRONLY | O_TRUNC | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	w = write(fd, s, n);
	if (w < 0) {
		int e = errno;

		close(fd);
		return -e;
	}
	if (close(fd) < 0)
		return -errno;
	return (size_t)w == n ? 0 : -EIO;
}

int write_file(const char *path, const char *s)
{
	return write_file_at(AT_FDCWD, path, path, s);
}
