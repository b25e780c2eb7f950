/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Files taod owns (history, audit log, metrics textfile). taod runs as
 * root and these live in directories others may write to, so nothing here
 * follows a symlink or writes through a predictable temporary name.
 */
#ifndef TAOD_STATE_FILES_H
#define TAOD_STATE_FILES_H

#include <stdio.h>
#include <sys/types.h>

/* mkdir -p of @path's directory; new directories get @mode. 0 or -errno. */
int make_parent_dirs(const char *path, mode_t mode);

/*
 * Opens (creating with @mode) a regular file for appending, refusing a
 * symlink; an existing file is narrowed to @mode. fd or -errno.
 */
int open_private_file(const char *path, int flags, mode_t mode);

typedef int (*file_writer_fn)(FILE *f, const void *ctx);

/*
 * Replaces @path with what @fn writes: a fresh mkstemp() file in the same
 * directory, given @mode and renamed over @path. 0 or -errno.
 */
int replace_file_atomically(const char *path, mode_t mode, file_writer_fn fn, const void *ctx);

/*
 * Opens the directory @path taod keeps state in, refusing one it cannot
 * trust: a symlink, or a directory not owned by taod's user or writable
 * by group or others (who could plant a file taod then acts on). fd, or
 * -errno with the reason in @why (-EPERM: its owner or mode).
 */
int private_dir_open(const char *path, char *why, size_t len);
/*
 * Reads @name under @dirfd whole, NUL-terminated, on the same terms: a
 * regular file (no symlink, FIFO or device), taod's own and writable by
 * taod alone. Bytes, or -errno with the reason in @why (-EINVAL: not a
 * regular file, -EPERM: owner or mode).
 */
ssize_t private_file_read_at(int dirfd, const char *name, char *buf, size_t len, char *why,
			     size_t why_len);

#endif
