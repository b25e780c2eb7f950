/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Every /proc, /sys and cgroupfs access goes through one root prefix, so
 * tests can point the daemon at a fixture tree.
 */
#ifndef TAOD_ROOTFS_H
#define TAOD_ROOTFS_H

#include <stddef.h>
#include <sys/types.h>

void rootfs_set(const char *prefix);
const char *rootfs_get(void);
/* Prefix an absolute path; already-prefixed paths are left alone. */
int rootfs_path(char *buf, size_t len, const char *abs_path);
/* Read a whole (small) file, NUL-terminated. Returns bytes or -errno. */
ssize_t read_file(const char *path, char *buf, size_t len);
/* Same, from the open file @fd, up to its end or @len - 1 bytes. */
ssize_t read_fd(int fd, char *buf, size_t len);
/* Same, for @name relative to the directory @dirfd (or AT_FDCWD). */
ssize_t read_file_at(int dirfd, const char *name, char *buf, size_t len);
/* Same, for a path under the root prefix. */
ssize_t rootfs_read(const char *abs_path, char *buf, size_t len);
/* Write a string to an existing file in one write(). Returns 0 or -errno. */
int write_file(const char *path, const char *s);
/* Same, for @name relative to @dirfd; the write hook sees @shown as its path. */
int write_file_at(int dirfd, const char *name, const char *shown, const char *s);
/*
 * Tests see (and may fail) every write_file(): the hook returns 0 to let the
 * write happen, 1 when it did the write itself, or -errno to fail it.
 */
typedef int (*write_hook_fn)(const char *path, const char *s, void *ctx);
void rootfs_set_write_hook(write_hook_fn fn, void *ctx);

#endif
