// SPDX-License-Identifier: GPL-2.0
/*
 * Tasks and their memory cgroups, as /proc and cgroup.procs tell. A pid
 * may be reused the moment its task is reaped, so every action holds a
 * pidfd: taken first, the task's cgroup checked after it, the system calls
 * made through it, and anything read by pid (smaps, pagemap) trusted only
 * if the pidfd says the task still lives after the read.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <sys/syscall.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "proc_tasks.h"
#include "act/act_backend.h"
#include "common/cgroup_path.h"
#include "common/cgroup_dir.h"
#include "common/rootfs.h"
#include "observe/cgroup_tree.h"

bool proc_task_exists(pid_t pid)
{
	char rel[64], path[PATH_MAX];

	snprintf(rel, sizeof(rel), "/proc/%d", (int)pid);
	return pid > 0 && !rootfs_path(path, sizeof(path), rel) && !access(path, F_OK);
}

bool proc_task_live(pid_t pid)
{
	char file[64], text[512];
	const char *end;
	ssize_t n;

	snprintf(file, sizeof(file), "/proc/%d/stat", (int)pid);
	n = pid > 0 ? rootfs_read(file, text, sizeof(text)) : -1;
	/* "pid (comm) S ...": comm may hold ')', the state follows the last. */
	end = n > 0 ? strrchr(text, ')') : NULL;
	if (!end) /* unreadable: by its /proc directory */
		return proc_task_exists(pid);
	return end[1] == ' ' && end[2] && !strchr("ZXx", end[2]);
}

pid_t proc_thread_group(pid_t pid)
{
	char file[64], text[4096];
	const char *tgid;
	ssize_t n;
	long v;

	snprintf(file, sizeof(file), "/proc/%d/status", (int)pid);
	n = pid > 0 ? rootfs_read(file, text, sizeof(text)) : -1;
	if (n <= 0)
		return pid;
	tgid = strstr(text, "\nTgid:");
	v = tgid ? strtol(tgid + 6, NULL, 10) : 0;
	return v > 0 ? (pid_t)v : pid;
}

bool pids_are_real(void)
{
	return !strcmp(rootfs_get(), "/");
}

/* @pid is among the pids in @rel's cgroup.procs. */
static bool listed_in_cgroup(const struct cgroup_tree *t, pid_t pid, const char *rel)
{
	pid_t *pids = malloc(ACT_MAX_TASKS * sizeof(*pids));
	int n = pids ? cgroup_read_pids(t, rel, pids, ACT_MAX_TASKS) : -ENOMEM;
	bool found = false;

	for (int i = 0; i < n && !found; i++)
		found = pids[i] == pid;
	free(pids);
	return found;
}

bool proc_task_in_cgroup(const struct cgroup_tree *t, pid_t pid, const char *rel)
{
	char file[64], text[8192], cg[PATH_MAX];
	ssize_t n;

	if (pid <= 0)
		return false;
	snprintf(file, sizeof(file), "/proc/%d/cgroup", (int)pid);
	/* The kernel prints a cgroup path of PATH_MAX or more cut to PATH_MAX - 1
	 * bytes (v1, measured on 6.18) or fails the read (ENAMETOOLONG, E2BIG):
	 * the cgroup's own list says then. */
	n = rootfs_read(file, text, sizeof(text));
	if (n == -ENAMETOOLONG || n == -E2BIG)
		return listed_in_cgroup(t, pid, rel);
	if (n <= 0 || cgroup_of_proc_text(text, t->version, cg, sizeof(cg)))
		return false;
	/* A cut path still proves @rel an ancestor when @rel ends inside it;
	 * else the cgroup's own list says (a deeper descendant is missed). */
	if (strlen(cg) >= PATH_MAX - 1 && strlen(rel) >= strlen(cg))
		return listed_in_cgroup(t, pid, rel);
	/* In @rel or below it: a tenant's task that moved to a child cgroup
	 * is still the tenant's (decide judges a subtree as one tenant). */
	return cgroup_path_within(cg, rel);
}

int pids_parse(const char *text, pid_t *pids, int max)
{
	int n = 0;

	/* Only whole lines: a pid cut by a full buffer would be another pid. */
	for (const char *tok = text, *nl; n < max && (nl = strchr(tok, '\n')); tok = nl + 1) {
		long v = strtol(tok, NULL, 10);

		if (v > 0 && v <= INT_MAX)
			pids[n++] = (pid_t)v;
	}
	return n;
}

int cgroup_read_pids(const struct cgroup_tree *t, const char *rel, pid_t *pids, int max)
{
	size_t cap = 1 << 20;
	char *text = malloc(cap);
	ssize_t len;
	int n;

	if (!text)
		return -ENOMEM;
	len = cgroup_file_read(t, rel, "cgroup.procs", text, cap);
	n = len < 0 ? (int)len : pids_parse(text, pids, max);
	free(text);
	return n;
}

int task_ref_open(struct task_ref *t, pid_t pid)
{
	t->pid = pid;
	t->pidfd = -1;
	if (pid <= 0)
		return -ESRCH;
	if (!pids_are_real()) /* a fixture's pids are files, not tasks */
		return proc_task_exists(pid) ? 0 : -ESRCH;
	t->pidfd = (int)syscall(SYS_pidfd_open, pid, 0);
	return t->pidfd < 0 ? -errno : 0;
}

void task_ref_close(struct task_ref *t)
{
	if (t->pidfd >= 0)
		close(t->pidfd);
	t->pidfd = -1;
}

bool task_ref_alive(const struct task_ref *t)
{
	if (t->pidfd < 0)
		return !pids_are_real() && proc_task_exists(t->pid);
	/* EPERM: alive, but another user's (the unit has no CAP_KILL); ESRCH: exited. */
	return !syscall(SYS_pidfd_send_signal, t->pidfd, 0, NULL, 0) || errno == EPERM;
}

bool task_ref_in_cgroup(const struct cgroup_tree *tree, const struct task_ref *t, const char *rel)
{
	/* Read by pid, so believed only if the pidfd's task outlived the read. */
	return proc_task_in_cgroup(tree, t->pid, rel) && task_ref_alive(t);
}

struct subtree_pids {
	pid_t *pids;
	int n, max, cgroups;
	char *text;
	size_t cap;
};

/* One cgroup's cgroup.procs, appended; stops once the list or the count
 * of cgroups is full. */
static int add_cgroup_pids(void *ctx, uint64_t id, const char *rel, int atfd, const char *name)
{
	struct subtree_pids *sp = ctx;
	int dir = openat(atfd, name, O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NOFOLLOW);
	int fd = dir < 0 ? -1 : openat(dir, "cgroup.procs", O_RDONLY | O_CLOEXEC);
	ssize_t len = fd < 0 ? -1 : read(fd, sp->text, sp->cap - 1);

	(void)id;
	(void)rel;
	if (dir >= 0)
		close(dir);
	if (fd >= 0)
		close(fd);
	if (len > 0) {
		sp->text[len] = '\0';
		sp->n += pids_parse(sp->text, sp->pids + sp->n, sp->max - sp->n);
	}
	return sp->n >= sp->max || ++sp->cgroups >= ACT_MAX_CGROUPS;
}

int cgroup_read_subtree_pids(const struct cgroup_tree *t, const char *rel, pid_t *pids, int max)
{
	struct subtree_pids sp = {.pids = pids, .max = max, .cap = 1 << 20};
	int r;

	sp.text = malloc(sp.cap);
	if (!sp.text)
		return -ENOMEM;
	r = cgroup_subtree_walk(t, rel, add_cgroup_pids, &sp);
	free(sp.text);
	return r < 0 ? r : sp.n;
}

int cgroup_has_tasks(const struct cgroup_tree *t, const char *rel)
{
	pid_t pid;
	int n = cgroup_read_subtree_pids(t, rel, &pid, 1);

	return n < 0 ? n : n > 0;
}

int for_each_task(const struct cgroup_tree *tree, const char *rel, pid_t only, task_visit_fn fn,
		  void *ctx)
{
	static pid_t pids[ACT_MAX_TASKS];
	int n = only ? 1 : cgroup_read_subtree_pids(tree, rel, pids, ACT_MAX_TASKS), seen = 0;

	if (only)
		pids[0] = only;
	for (int i = 0; i < n; i++) {
		struct task_ref t;
		int stop = 0;

		if (!task_ref_open(&t, pids[i]) && task_ref_in_cgroup(tree, &t, rel)) {
			seen++;
			stop = fn(ctx, &t);
		}
		task_ref_close(&t);
		if (stop)
			break;
	}
	return n < 0 ? n : seen;
}
