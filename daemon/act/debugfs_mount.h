/* SPDX-License-Identifier: GPL-2.0 */
/*
 * debugfs, for split_huge_pages: taod mounts it only right before a
 * shatter that writes it (enforce mode, a policy or an operator asking),
 * only on the real root, in its own process (never in an offload child,
 * whose mount taod could not tell it made), and at exit unmounts what it
 * mounted, leaving a debugfs it found mounted as it was.
 * Defined in debugfs_mount.c.
 */
#ifndef TAOD_DEBUGFS_MOUNT_H
#define TAOD_DEBUGFS_MOUNT_H

#include "act_backend.h"

/* Mounts debugfs at k->debugfs when @split_path (under the root) is absent. */
void debugfs_mount_for_split(const struct kernel_paths *k, const char *split_path);
/* At exit: unmounts what debugfs_mount_for_split() mounted. 1 if it did, 0
 * when taod mounted nothing, -errno when the unmount failed. */
int debugfs_unmount_ours(void);

#endif
