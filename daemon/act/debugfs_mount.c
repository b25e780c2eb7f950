// SPDX-License-Identifier: GPL-2.0
/* debugfs mounted for a split and unmounted at exit (debugfs_mount.h). */
#include "debugfs_mount.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/mount.h>
#include <unistd.h>

#include "common/log.h"
#include "common/offload.h"
#include "common/rootfs.h"

static char mounted[PATH_MAX]; /* where taod mounted debugfs; "" if it did not */

void debugfs_mount_for_split(const struct kernel_paths *k, const char *split_path)
{
	if (offload_in_child() || !access(split_path, F_OK) || strcmp(rootfs_get(), "/"))
		return;
	if (mount("debugfs", k->debugfs, "debugfs", 0, NULL)) {
		log_repeated(LOG_REPEAT_DEBUGFS_MOUNT, LOG_WARNING, "mounting debugfs at %s: %s",
			     k->debugfs, strerror(errno));
		return;
	}
	snprintf(mounted, sizeof(mounted), "%s", k->debugfs);
	log_info("mounted debugfs at %s for split_huge_pages (unmounted when taod exits)",
		 k->debugfs);
}

int debugfs_unmount_ours(void)
{
	int r;

	if (!mounted[0])
		return 0;
	/* Busy (a reader inside it): detached, gone once it lets go. */
	r = umount2(mounted, 0) && umount2(mounted, MNT_DETACH) ? -errno : 1;
	if (r < 0)
		log_warn("unmounting debugfs at %s, which taod mounted: %s", mounted, strerror(-r));
	else
		log_info("unmounted debugfs at %s, which taod mounted", mounted);
	mounted[0] = '\0';
	return r;
}
