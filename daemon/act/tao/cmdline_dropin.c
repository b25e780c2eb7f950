// SPDX-License-Identifier: GPL-2.0
/* The kernel command-line drop-in for the TAO zone sizes (cmdline_dropin.h). */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cmdline_dropin.h"
#include "common/rootfs.h"

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

static int write_all(int fd, const char *s)
{
	size_t n = strlen(s);
	ssize_t w = write(fd, s, n);

	if (w < 0)
		return -errno;
	return (size_t)w == n ? 0 : -EIO;
}

int cmdline_dropin_write(const char *path, const char *params)
{
	char real[PATH_MAX], tmp[PATH_MAX + 8], dir[PATH_MAX], text[512];
	int fd, r = cmdline_dropin_text(params, text, sizeof(text));

	if (r)
		return r;
	if (rootfs_path(real, sizeof(real), path) ||
	    snprintf(tmp, sizeof(tmp), "%s.new", real) >= (int)sizeof(tmp))
		return -ENAMETOOLONG;
	snprintf(dir, sizeof(dir), "%s", real);
	if (mkdir(dirname(dir), 0755) && errno != EEXIST)
		return -errno;
	fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0644);
	if (fd < 0)
		return -errno;
	r = write_all(fd, text);
	if (!r && fsync(fd))
		r = -errno;
	if (close(fd) && !r)
		r = -errno;
	if (!r && rename(tmp, real))
		r = -errno;
	if (r)
		unlink(tmp);
	return r;
}
