// SPDX-License-Identifier: GPL-2.0
#define _GNU_SOURCE
#include "taod/cgroup_dir.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "taod/cgroup_path.h"
#include "taod/rootfs.h"

#define DIR_FLAGS (O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)

/* One step down: @fd is closed, the child's fd (or -errno) returned. */
static int step_down(int fd, const char *name, size_t n)
{
	char comp[NAME_MAX + 1];
	int child;

	if (n > NAME_MAX) {
		close(fd);
		return -ENAMETOOLONG;
	}
	memcpy(comp, name, n);
	comp[n] = '\0';
	child = openat(fd, comp, DIR_FLAGS);
	if (child < 0)
		child = -errno;
	close(fd);
	return child;
}

int dir_open_beneath(int rootfd, const char *rel)
{
	int fd;

	if (!cgroup_path_canonical(rel, NULL, 0))
		return -EINVAL;
	fd = openat(rootfd, ".", DIR_FLAGS);
	if (fd < 0)
		return -errno;
	for (const char *c = rel + 1; *c && fd >= 0;) {
		size_t n = strcspn(c, "/");

		fd = step_down(fd, c, n);
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

ssize_t cgroup_file_read(const struct cgroup_tree *t, const char *rel, const char *file,
			 char *buf, size_t len)
{
	int dir = cgroup_dir_open(t, rel);
	ssize_t r;

	if (dir < 0)
		return dir;
	r = read_file_at(dir, file, buf, len);
	close(dir);
	return r;
}

int cgroup_file_write(const struct cgroup_tree *t, const char *rel, const char *file,
		      const char *s)
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
