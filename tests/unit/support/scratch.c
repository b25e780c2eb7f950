// SPDX-License-Identifier: GPL-2.0
#define _GNU_SOURCE
#include "scratch.h"

#include <criterion/criterion.h>
#include <errno.h>
#include <ftw.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

const char *scratch_make(char dir[SCRATCH_DIR_MAX], const char *tag)
{
	int n = snprintf(dir, SCRATCH_DIR_MAX, "/tmp/taod-%s-XXXXXX", tag);

	cr_assert(n > 0 && n < SCRATCH_DIR_MAX, "scratch tag too long: %s", tag);
	cr_assert_not_null(mkdtemp(dir), "mkdtemp %s: %s", dir, strerror(errno));
	return dir;
}

/* @dir/@rel without a doubled '/' when @rel starts with one. */
static void join(char *out, size_t len, const char *dir, const char *rel)
{
	int n = snprintf(out, len, "%s%s%s", dir, rel[0] == '/' ? "" : "/", rel);

	cr_assert(n > 0 && (size_t)n < len, "scratch path too long: %s/%s", dir, rel);
}

/* mkdir -p of @path's every prefix that ends before a '/', then of @path
 * itself when @whole. */
static void make_parents(char *path, bool whole)
{
	for (char *p = path + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = '\0';
		cr_assert(!mkdir(path, 0755) || errno == EEXIST, "mkdir %s: %s", path,
			  strerror(errno));
		*p = '/';
	}
	if (whole)
		cr_assert(!mkdir(path, 0755) || errno == EEXIST, "mkdir %s: %s", path,
			  strerror(errno));
}

void scratch_mkdir(const char *dir, const char *rel)
{
	char path[PATH_MAX];

	join(path, sizeof(path), dir, rel);
	make_parents(path, true);
}

const char *scratch_write_bytes(const char *dir, const char *rel, const void *data, size_t len)
{
	static char path[PATH_MAX];
	FILE *f;

	join(path, sizeof(path), dir, rel);
	make_parents(path, false);
	f = fopen(path, "w");
	cr_assert_not_null(f, "%s: %s", path, strerror(errno));
	cr_assert_eq(fwrite(data, 1, len, f), len, "%s: short write", path);
	cr_assert_eq(fclose(f), 0, "%s: %s", path, strerror(errno));
	return path;
}

const char *scratch_write(const char *dir, const char *rel, const char *text)
{
	return scratch_write_bytes(dir, rel, text, strlen(text));
}

static int remove_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	return remove(path) ? -errno : 0;
}

int scratch_remove(const char *dir)
{
	int r;

	if (!dir[0])
		return 0;
	r = nftw(dir, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
	return r == -1 ? -errno : r;
}

char *scratch_read(const char *path)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = fopen(path, "r"), *out = open_memstream(&buf, &len);
	int ch;

	cr_assert_not_null(f, "%s", path);
	while ((ch = fgetc(f)) != EOF)
		fputc(ch, out);
	fclose(f);
	fclose(out);
	return buf;
}
