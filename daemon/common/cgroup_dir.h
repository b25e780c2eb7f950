/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A cgroup's directory and files, at any depth. Cgroups nest deeper than
 * PATH_MAX and their names hold any byte but '/', so a cgroup is never
 * reached by one long path: its directory is opened from the hierarchy
 * mount in chunks of whole components shorter than PATH_MAX (openat2 with
 * RESOLVE_BENEATH|RESOLVE_NO_SYMLINKS, or one openat with O_NOFOLLOW per
 * component where openat2 is missing: nothing but directories, no symlink
 * followed), and its files relative to that directory.
 */
#ifndef TAOD_CGROUP_DIR_H
#define TAOD_CGROUP_DIR_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

/* Where the memory cgroup hierarchy is (found by observe/cgroup_tree.c). */
struct cgroup_tree {
	int version;	      /* 1 or 2 */
	char mount[PATH_MAX]; /* on the filesystem, root prefix included */
	char self[PATH_MAX];  /* the daemon's own memory cgroup, relative */
	/* /proc/self/cgroup could not name it whole (PATH_MAX or longer): the
	 * gate cannot tell taod's own cgroup, so it acts on none. */
	bool self_unknown;
};

/*
 * Opens the directory @rel ("/" or a canonical "/a/b") below the directory
 * @rootfd. Returns an O_CLOEXEC directory fd, or -errno: -EINVAL when @rel
 * is not canonical, -ENOTDIR or -ELOOP when a component is not a directory
 * (a symlink), -ENOENT when one is gone.
 */
int dir_open_beneath(int rootfd, const char *rel);

/* The directory of the cgroup @rel under @t's mount; fd or -errno. */
int cgroup_dir_open(const struct cgroup_tree *t, const char *rel);

/* Reads @file of cgroup @rel whole, NUL-terminated; bytes or -errno. The
 * file is opened in one openat2 from the mount when its path is shorter
 * than PATH_MAX (memory.stat is read every tick: half its cost was the
 * opens), else through its directory as above. */
ssize_t cgroup_file_read(const struct cgroup_tree *t, const char *rel, const char *file, char *buf,
			 size_t len);

/* Writes @s to @file of cgroup @rel in one write(); 0 or -errno. */
int cgroup_file_write(const struct cgroup_tree *t, const char *rel, const char *file,
		      const char *s);

/* True when @file exists in cgroup @rel. */
bool cgroup_file_exists(const struct cgroup_tree *t, const char *rel, const char *file);

/*
 * The path a person would use for @file of @rel (@file NULL: the directory),
 * malloc'd, for messages and the write hook only; NULL on ENOMEM.
 */
char *cgroup_file_shown(const struct cgroup_tree *t, const char *rel, const char *file);

#endif
