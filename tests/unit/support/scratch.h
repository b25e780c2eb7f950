/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A scratch directory tree for one test: made fresh under /tmp, filled with
 * files and directories, removed with everything in it. Every helper fails
 * the running test (a Criterion assertion) when the file system refuses, so
 * a test never goes on with a half-made tree.
 */
#ifndef TAOD_TEST_SCRATCH_H
#define TAOD_TEST_SCRATCH_H

#include <stddef.h>

/* Room for a scratch directory's path: "/tmp/taod-" + tag + "-XXXXXX". */
#define SCRATCH_DIR_MAX 64

/*
 * Makes a new empty directory /tmp/taod-@tag-XXXXXX (mkdtemp: private, a
 * name no other test has) and writes its path into @dir. Returns @dir.
 */
const char *scratch_make(char dir[SCRATCH_DIR_MAX], const char *tag);
/*
 * Makes the directory @rel under @dir and its missing parents (mkdir -p);
 * @rel may start with '/'. Directories already there are fine.
 */
void scratch_mkdir(const char *dir, const char *rel);
/*
 * Writes @len bytes of @data (NULs too) to the file @rel under @dir,
 * replacing it, after making its missing parents. Returns the file's path,
 * valid until the next scratch_write or scratch_write_bytes.
 */
const char *scratch_write_bytes(const char *dir, const char *rel, const void *data, size_t len);
/* scratch_write_bytes of the string @text. */
const char *scratch_write(const char *dir, const char *rel, const char *text);
/* The whole file at @path (a test's data), NUL-terminated, to free();
 * fails the running test when it cannot be read. */
char *scratch_read(const char *path);
/*
 * Removes @dir and everything under it, depth first, never following a
 * symlink (nftw with FTW_PHYS): a link a test planted is removed, its
 * target is not. Returns 0, or -errno of the first entry that would not go
 * or of the walk itself (an empty string for @dir, never made, is 0).
 */
int scratch_remove(const char *dir);

#endif
