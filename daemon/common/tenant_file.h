/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Opening a file a tenant controls (a path from its /proc/PID/maps, its
 * executable) without letting it block or misdirect taod: a FIFO, device,
 * socket or directory at the path, a symlink put there after the mapping,
 * a FUSE file whose reads the tenant answers, or a file too big to read.
 * Defined in tenant_file.c.
 */
#ifndef TAOD_TENANT_FILE_H
#define TAOD_TENANT_FILE_H

#include <stdint.h>

/*
 * Opens @path for reading as the tenant's root @root (a directory such as
 * /proc/PID/root, or "/") sees it: the walk stays inside
 * @root (openat2 RESOLVE_IN_ROOT where the kernel allows it), the last
 * component is no symlink, and nothing but a regular file of at most
 * @max_bytes on a filesystem taod trusts to answer is opened for reading
 * (the check is made on an O_PATH descriptor, so opening a FIFO or device
 * has no effect). Returns the descriptor (O_RDONLY|O_NONBLOCK|O_CLOEXEC),
 * or -errno: -ENOENT and such from the walk, -EINVAL not a regular file,
 * -EFBIG too big, -EREMOTE on FUSE. @root NULL: @path is a link the
 * kernel keeps (/proc/PID/exe), followed; the file checks still hold.
 */
int tenant_file_open(const char *root, const char *path, uint64_t max_bytes);

#endif
