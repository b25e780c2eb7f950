// SPDX-License-Identifier: GPL-2.0
#define _GNU_SOURCE
#include "cgroup_dir.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <linux/openat2.h>

#include "cgroup_path.h"
#include "rootfs.h"

#define DIR_FLAGS (O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)

/*
 * Opens @path (relative, whole components) below @fd in one openat2: no
 * component may be a symlink or lead out of @fd. Kernels before 5.6 (or a
 * seccomp filter) refuse openat2: then one openat per component.
 */
static int open_beneath_once(int fd, char *path)
{
	struct open_how how = {.flags = DIR_FLAGS,
			       .resolve =
				   RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS};
	long r = syscall(SYS_openat2, fd, path, &how, sizeof(how));
	int cur = -1, e;

	if (r >= 0 || (errno != ENOSYS && errno != EPERM))
		return r >= 0 ? (int)r : -errno;
	for (char *save = NULL, *c = strtok_r(path, "/", &save); c;
	     c = strtok_r(NULL, "/", &save)) {
		int next = openat(cur >= 0 ? cur : fd, c, DIR_FLAGS);

		e = errno;
		if (cur >= 0)
			close(cur);
		if (next < 0)
			return -e;
		cur = next;
	}
	return cur;
}

/* Bytes of @c opened in one go: whole components, fewer than PATH_MAX if it can. */
static size_t chunk_len(const char *c)
{
	size_t n = strcspn(c, "/");

	while (c[n] == '/') {
		size_t m = n + 1 + strcspn(c + n + 1, "/");

		if (m >= PATH_MAX)
			break;
		n = m;
	}
	return n;
}

/* One chunk down from @fd (closed unless it is @keep): the directory's fd, or -errno. */
static int step_down(int fd, int keep, const char *c, size_t n)
{
	char chunk[PATH_MAX];
	int child = -ENAMETOOLONG; /* one component longer than any name can be */

	if (n < sizeof(chunk)) {
		memcpy(chunk, c, n);
		chunk[n] = '\0';
		child = open_beneath_once(fd, chunk);
	}
	if (fd != keep)
		close(fd);
	return child;
}

/* Chunks of fewer than PATH_MAX bytes: a path of any length, in few system
 * calls (one for a path shorter than PATH_MAX). */
int dir_open_beneath(int rootfd, const char *rel)
{
	int fd = rootfd;

	if (!cgroup_path_canonical(rel, NULL, 0))
		return -EINVAL;
	if (!rel[1]) { /* the root itself */
		fd = openat(rootfd, ".", DIR_FLAGS);
		return fd < 0 ? -errno : fd;
	}
	for (const char *c = rel + 1; *c && fd >= 0;) {
		size_t n = chunk_len(c);

		fd = step_down(fd, rootfd, c, n);
		c += n + (c[n] == '/');
	}
	return fd;
}

int cgroup_dir_open(const struct cgroup_tree *t, const char *rel)
{
	int root = open(t->mount, DIR_FLAGS), fd;

	if (root < 0)
		return -errno;
	fd = dir_open_beneath(root, rel);
	close(root);
	return fd;
}

/*
 * @file of @rel opened in one openat2 from the mount, beneath it and through
 * no symlink (a file read every tick: memory.stat); -EAGAIN when that
 * cannot be (a path too long, no openat2), for the walk a directory at a
 * time.
 */
static int file_open_once(int root, const char *rel, const char *file)
{
	struct open_how how = {.flags = O_RDONLY | O_NOFOLLOW | O_CLOEXEC,
			       .resolve =
				   RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS};
	char path[PATH_MAX];
	long fd;

	if (!cgroup_path_canonical(rel, NULL, 0) || strchr(file, '/'))
		return -EINVAL;
	if ((size_t)snprintf(path, sizeof(path), "%s/%s", rel[1] ? rel + 1 : ".", file) >=
	    sizeof(path))
		return -EAGAIN;
	fd = syscall(SYS_openat2, root, path, &how, sizeof(how));
	if (fd < 0)
		return errno == ENOSYS || errno == EPERM ? -EAGAIN : -errno;
	return (int)fd;
}

ssize_t cgroup_file_read(const struct cgroup_tree *t, const char *rel, const char *file, char *buf,
			 size_t len)
{
	int root = open(t->mount, DIR_FLAGS), dir, fd;
	ssize_t r;

	if (root < 0)
		return -errno;
	fd = len ? file_open_once(root, rel, file) : -EINVAL;
	if (fd != -EAGAIN) {
		close(root);
		if (fd < 0)
			return fd;
		r = read_fd(fd, buf, len);
		close(fd);
		return r;
	}
	dir = dir_open_beneath(root, rel);
	close(root);
	if (dir < 0)
		return dir;
	r = read_file_at(dir, file, buf, len);
	close(dir);
	return r;
}

int cgroup_file_write(const struct cgroup_tree *t, const char *rel, const char *file, const char *s)
{
	char *shown = cgroup_file_shown(t, rel, file);
	int dir = cgroup_dir_open(t, rel), r;

	if (!shown || dir < 0) {
		free(shown);
		if (dir >= 0)
			close(dir);
		return dir < 0 ? dir : -ENOMEM;
	}
	r = write_file_at(dir, file, shown, s);
	close(dir);
	free(shown);
	return r;
}

bool cgroup_file_exists(const struct cgroup_tree *t, const char *rel, const char *file)
{
	int dir = cgroup_dir_open(t, rel);
	bool there;

	if (dir < 0)
		return false;
	there = !faccessat(dir, file, F_OK, AT_SYMLINK_NOFOLLOW);
	close(dir);
	return there;
}

char *cgroup_file_shown(const struct cgroup_tree *t, const char *rel, const char *file)
{
	char *out;

	if (asprintf(&out, "%s%s%s%s", t->mount, strcmp(rel, "/") ? rel : "", file ? "/" : "",
		     file ? file : "") < 0)
		return NULL;
	return out;
}
