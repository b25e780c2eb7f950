// SPDX-License-Identifier: GPL-2.0
/* Cgroup directories opened component by component: any depth, any byte, no symlink. */
#define _GNU_SOURCE
#include <criterion/criterion.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/cgroup_dir.h"
#include "observe/cgroup_tree.h"

#include "../support/scratch.h"

#define LEVELS 25 /* of 200-byte names: 5025 bytes of path, past PATH_MAX */

static char root[SCRATCH_DIR_MAX];
static char *deep; /* "/d00xxx.../d01xxx..." relative to root */
static ino_t deep_ino;
static char names[LEVELS][201];

/* Makes the chain with mkdirat: no path of it is ever spelled in full. */
static void make_deep(void)
{
	int fd = open(root, O_RDONLY | O_DIRECTORY), file;
	size_t len = 0;
	struct stat st;

	deep = calloc(1, LEVELS * 201 + 1);
	for (int i = 0; i < LEVELS; i++) {
		int child;

		memset(names[i], 'x', 200);
		names[i][200] = '\0';
		snprintf(names[i], 4, "d%02d", i);
		names[i][3] = 'x';
		cr_assert_eq(mkdirat(fd, names[i], 0755), 0);
		child = openat(fd, names[i], O_RDONLY | O_DIRECTORY);
		cr_assert_geq(child, 0);
		close(fd);
		fd = child;
		len += (size_t)sprintf(deep + len, "/%s", names[i]);
	}
	cr_assert_eq(fstat(fd, &st), 0);
	deep_ino = st.st_ino;
	file = openat(fd, "memory.stat", O_WRONLY | O_CREAT, 0644);
	cr_assert_geq(file, 0);
	close(file);
	close(fd);
}

static void setup(void)
{
	scratch_make(root, "dir");
	make_deep();
}

/* Removes the chain from the bottom, each step relative to its parent
 * (nftw would spell its paths in full, past PATH_MAX), then the rest. */
static void teardown(void)
{
	int fds[LEVELS + 1];

	fds[0] = open(root, O_RDONLY | O_DIRECTORY);
	for (int i = 0; i < LEVELS; i++)
		fds[i + 1] = openat(fds[i], names[i], O_RDONLY | O_DIRECTORY);
	unlinkat(fds[LEVELS], "memory.stat", 0);
	for (int i = LEVELS - 1; i >= 0; i--) {
		unlinkat(fds[i], names[i], AT_REMOVEDIR);
		close(fds[i + 1]);
	}
	close(fds[0]);
	free(deep);
	cr_assert_eq(scratch_remove(root), 0);
}

TestSuite(cgroup_dir, .init = setup, .fini = teardown);

Test(cgroup_dir, dir_open_beneath_reaches_a_directory_deeper_than_path_max)
{
	int rootfd = open(root, O_RDONLY | O_DIRECTORY), fd;
	struct stat st;

	cr_assert_gt(strlen(deep), PATH_MAX);
	fd = dir_open_beneath(rootfd, deep);
	cr_assert_geq(fd, 0, "%s", strerror(-fd));
	cr_assert_eq(fstat(fd, &st), 0);
	cr_assert_eq(st.st_ino, deep_ino);
	close(fd);
	cr_assert_eq(dir_open_beneath(rootfd, "/d00-not-there"), -ENOENT);
	close(rootfd);
}

Test(cgroup_dir, cgroup_file_read_and_write_at_any_depth)
{
	struct cgroup_tree t = {.version = 2};
	char buf[64];

	snprintf(t.mount, sizeof(t.mount), "%s", root);
	cr_assert_eq(cgroup_file_write(&t, deep, "memory.stat", "anon 4096\n"), 0);
	cr_assert_eq(cgroup_file_read(&t, deep, "memory.stat", buf, sizeof(buf)), 10);
	cr_assert_str_eq(buf, "anon 4096\n");
	cr_assert(cgroup_file_exists(&t, deep, "memory.stat"));
	cr_assert_not(cgroup_file_exists(&t, deep, "memory.thp_shatter"));
}

/* A symlink is never a cgroup: following one would leave the hierarchy. */
Test(cgroup_dir, dir_open_beneath_refuses_a_symlink_component)
{
	int rootfd = open(root, O_RDONLY | O_DIRECTORY), r;
	char link[300];

	snprintf(link, sizeof(link), "%s/%s/up", root, names[0]);
	cr_assert_eq(symlink("/", link), 0);
	snprintf(link, sizeof(link), "/%s/up", names[0]);
	r = dir_open_beneath(rootfd, link);
	cr_assert(r == -ELOOP || r == -ENOTDIR, "%d", r);
	snprintf(link, sizeof(link), "/%s/up/tmp", names[0]);
	r = dir_open_beneath(rootfd, link);
	cr_assert(r == -ELOOP || r == -ENOTDIR, "%d", r);
	snprintf(link, sizeof(link), "%s/%s/up", root, names[0]);
	unlink(link);
	close(rootfd);
}

Test(cgroup_dir, dir_open_beneath_refuses_dodges_and_takes_control_characters)
{
	int rootfd = open(root, O_RDONLY | O_DIRECTORY), fd;
	char odd[] = "/t\tab\x1b[31m";

	cr_assert_eq(dir_open_beneath(rootfd, "/d00x/../.."), -EINVAL);
	cr_assert_eq(dir_open_beneath(rootfd, "//"), -EINVAL);
	cr_assert_eq(mkdirat(rootfd, odd + 1, 0755), 0);
	fd = dir_open_beneath(rootfd, odd);
	cr_assert_geq(fd, 0, "%s", strerror(-fd));
	close(fd);
	unlinkat(rootfd, odd + 1, AT_REMOVEDIR);
	close(rootfd);
}

/* Also checks that @name under @atfd is the directory the walk names. */
static int find_deep(void *ctx, uint64_t id, const char *rel, int atfd, const char *name)
{
	struct stat st;

	cr_assert_eq(fstatat(atfd, name, &st, AT_SYMLINK_NOFOLLOW), 0);
	cr_assert_eq((uint64_t)st.st_ino, id, "%s", rel);
	if (!strcmp(rel, deep))
		*(uint64_t *)ctx = id;
	return 0;
}

/* The walk names every cgroup, however long its path. */
Test(cgroup_dir, cgroup_tree_walk_visits_past_path_max)
{
	struct cgroup_tree t = {.version = 2};
	uint64_t id = 0;

	snprintf(t.mount, sizeof(t.mount), "%s", root);
	cr_assert_eq(cgroup_tree_walk(&t, find_deep, &id), 0);
	cr_assert_eq(id, (uint64_t)deep_ino);
}
