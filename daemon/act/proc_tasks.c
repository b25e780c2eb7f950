// SPDX-License-Identifier: GPL-2.0
/* Tasks and their memory cgroups, as /proc and cgroup.procs tell. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "act_internal.h"
#include "taod/rootfs.h"

bool proc_task_exists(pid_t pid)
{
	char rel[64], path[PATH_MAX];

	snprintf(rel, sizeof(rel), "/proc/%d", (int)pid);
	return pid > 0 && !rootfs_path(path, sizeof(path), rel) && !access(path, F_OK);
}

bool pids_are_real(void)
{
	return !strcmp(rootfs_get(), "/");
}

bool proc_task_in_cgroup(const struct cgroup_tree *t, pid_t pid, const char *rel)
{
	char file[64], text[8192], cg[PATH_MAX];

	snprintf(file, sizeof(file), "/proc/%d/cgroup", (int)pid);
	if (pid <= 0 || rootfs_read(file, text, sizeof(text)) <= 0 ||
	    cgroup_of_proc_text(text, t->version, cg, sizeof(cg)))
		return false;
	return !strcmp(cg, rel);
}

int cgroup_read_pids(const struct cgroup_tree *t, const char *rel, pid_t *pids, int max)
{
	char path[PATH_MAX], *text, *save = NULL;
	size_t cap = 1 << 20;
	ssize_t len;
	int n = 0;

	if (cgroup_file_path(t, rel, "cgroup.procs", path, sizeof(path)))
		return -ENAMETOOLONG;
	text = malloc(cap);
	if (!text)
		return -ENOMEM;
	len = read_file(path, text, cap);
	if (len < 0) {
		free(text);
		return (int)len;
	}
	for (char *tok = strtok_r(text, "\n", &save); tok && n < max;
	     tok = strtok_r(NULL, "\n", &save)) {
		long v = strtol(tok, NULL, 10);

		if (v > 0)
			pids[n++] = (pid_t)v;
	}
	free(text);
	return n;
}
