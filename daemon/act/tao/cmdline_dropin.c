// SPDX-License-Identifier: GPL-2.0
/* The kernel command-line drop-in for the TAO zone sizes (cmdline_dropin.h). */
#define _GNU_SOURCE
#include <errno.h>
#include <libgen.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cmdline_dropin.h"
#include "common/rootfs.h"
#include "common/state_files.h"

/* The value goes inside double quotes in a shell file: no quoting characters. */
static bool safe_params(const char *s)
{
	if (!*s)
		return false;
	for (; *s; s++)
		if (!strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789=,.%_- ",
			    *s))
			return false;
	return true;
}

int cmdline_dropin_text(const char *params, char *buf, size_t len)
{
	int n;

	if (!safe_params(params))
		return -EINVAL;
	n = snprintf(buf, len,
		     "# Written by taod (taoctl zones --apply): TAO policy zone sizes for the\n"
		     "# next boot. Run update-grub to put them on the kernel command line.\n"
		     "GRUB_CMDLINE_LINUX=\"$GRUB_CMDLINE_LINUX %s\"\n",
		     params);
	return n < 0 || (size_t)n >= len ? -ENOSPC : 0;
}

/* The text, on disk before the rename: grub may read it right after a crash. */
static int write_synced(FILE *f, const void *text)
{
	if (fputs(text, f) == EOF || fflush(f))
		return -EIO;
	return fsync(fileno(f)) ? -errno : 0;
}

int cmdline_dropin_write(const char *path, const char *params)
{
	char real[PATH_MAX], dir[PATH_MAX], text[512];
	int r = cmdline_dropin_text(params, text, sizeof(text));

	if (r)
		return r;
	if (rootfs_path(real, sizeof(real), path))
		return -ENAMETOOLONG;
	snprintf(dir, sizeof(dir), "%s", real);
	if (mkdir(dirname(dir), 0755) && errno != EEXIST)
		return -errno;
	/* A fresh mkostemp name: a FIFO or hard link planted beside it is never opened. */
	return replace_file_atomically(real, 0644, write_synced, text);
}
