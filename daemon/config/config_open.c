// SPDX-License-Identifier: GPL-2.0
/*
 * Opening a configuration file: only a regular file of bounded size. A
 * FIFO would block taod in open() or read() (at a reload, with SIGTERM
 * waiting behind it), a device such as /dev/zero never ends, a kernel
 * file that looks regular does things when read (a drop-in symlinked to
 * /proc/kmsg would take the kernel's log from whoever reads it), and a
 * huge file costs memory while it is read: each is refused by name instead.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <linux/magic.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <unistd.h>

#include "config_internal.h"
#include "common/file_kind.h"

/* The kernel's own filesystems: their files are interfaces, not text. */
static const struct {
	long magic;
	const char *name;
} kernel_fs[] = {
    {PROC_SUPER_MAGIC, "procfs"},     {SYSFS_MAGIC, "sysfs"},
    {DEBUGFS_MAGIC, "debugfs"},	      {TRACEFS_MAGIC, "tracefs"},
    {CGROUP_SUPER_MAGIC, "cgroupfs"}, {CGROUP2_SUPER_MAGIC, "cgroup2"},
    {SECURITYFS_MAGIC, "securityfs"}, {BPF_FS_MAGIC, "bpffs"},
    {EFIVARFS_MAGIC, "efivarfs"},
};

/* A file of the kernel's own filesystems: refused, with its name. */
static bool kernel_file(struct config_parse *p, const struct statfs *fs)
{
	for (size_t i = 0; i < sizeof(kernel_fs) / sizeof(kernel_fs[0]); i++)
		if ((long)fs->f_type == kernel_fs[i].magic) {
			config_error_add(p,
					 "a file of the kernel's %s, not a configuration file: "
					 "configuration is read from files only",
					 kernel_fs[i].name);
			return true;
		}
	return false;
}

static bool acceptable(struct config_parse *p, const struct stat *st)
{
	if (!S_ISREG(st->st_mode)) {
		config_error_add(p, "%s, not a regular file: configuration is read from files only",
				 file_kind_name(st->st_mode));
		return false;
	}
	if (st->st_size > CONFIG_MAX_BYTES) {
		config_error_add(p, "%lld bytes: a configuration file may hold at most %d",
				 (long long)st->st_size, CONFIG_MAX_BYTES);
		return false;
	}
	return true;
}

FILE *config_open(struct config_parse *p, const char *path)
{
	struct stat st;
	FILE *f;
	int fd;

	struct statfs fs;

	/* Looked at before the open: opening some devices already does something. */
	if ((stat(path, &st) == 0 && !acceptable(p, &st)) ||
	    (statfs(path, &fs) == 0 && kernel_file(p, &fs)))
		return NULL;
	/* O_NONBLOCK: what was swapped in for a FIFO since must not block the open. */
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
	if (fd < 0) {
		config_error_add(p, "cannot open: %s", strerror(errno));
		return NULL;
	}
	if (fstat(fd, &st)) {
		config_error_add(p, "cannot stat: %s", strerror(errno));
		close(fd);
		return NULL;
	}
	if (!acceptable(p, &st) || (!fstatfs(fd, &fs) && kernel_file(p, &fs))) {
		close(fd);
		return NULL;
	}
	f = fdopen(fd, "r");
	if (!f) {
		config_error_add(p, "cannot read: %s", strerror(errno));
		close(fd);
	}
	return f;
}
