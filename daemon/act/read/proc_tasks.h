/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Tasks of a cgroup.
 * Defined in proc_tasks.c.
 */
#ifndef TAOD_ACT_PROC_TASKS_H
#define TAOD_ACT_PROC_TASKS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "act/act_backend.h"

#define ACT_MAX_TASKS	4096
#define ACT_MAX_CGROUPS 1024

bool proc_task_exists(pid_t pid);
/* Exists and is no zombie: a dead process's /proc stays until it is reaped. */
bool proc_task_live(pid_t pid);
/*
 * The thread group (process) a thread id belongs to, from /proc/PID/status
 * (a TID is a PID to /proc, not to pidfd_open or the task rows); @pid
 * itself when it leads its group, or cannot be read.
 */
pid_t proc_thread_group(pid_t pid);
/*
 * Pids read under a fixture root are not this machine's processes: system
 * calls on them (pidfd_open, process_madvise) are made only on the real root.
 */
bool pids_are_real(void);
/* True when @pid's memory cgroup is @rel. */
bool proc_task_in_cgroup(const struct cgroup_tree *t, pid_t pid, const char *rel);
/* The pids of a cgroup.procs text, whole lines only; returns how many. */
int pids_parse(const char *text, pid_t *pids, int max);
/* The pids in @rel's cgroup.procs; returns how many, or -errno. */
int cgroup_read_pids(const struct cgroup_tree *t, const char *rel, pid_t *pids, int max);
/*
 * The pids of @rel and the cgroups below it (a tenant is judged as its
 * subtree), at most @max from at most ACT_MAX_CGROUPS cgroups: a tenant
 * making cgroups cannot make the walk unbounded. How many, or -errno.
 */
int cgroup_read_subtree_pids(const struct cgroup_tree *t, const char *rel, pid_t *pids, int max);
/* 1 when a task is in @rel or a cgroup below it, 0 when none, or -errno. */
int cgroup_has_tasks(const struct cgroup_tree *t, const char *rel);

/* A task held by a pidfd (-1 under a fixture root, where pids are files). */
struct task_ref {
	pid_t pid;
	int pidfd;
};

/* 0, or -ESRCH when the task is gone. Close even after a failure. */
int task_ref_open(struct task_ref *t, pid_t pid);
void task_ref_close(struct task_ref *t);
/* The pidfd's task has not exited: what was read by pid before was its. */
bool task_ref_alive(const struct task_ref *t);
bool task_ref_in_cgroup(const struct cgroup_tree *tree, const struct task_ref *t, const char *rel);

/* Non-zero from the visitor stops the walk. */
typedef int (*task_visit_fn)(void *ctx, const struct task_ref *t);
/*
 * Calls @fn with a pidfd-held task for @only, or for each task of @rel's
 * subtree (cgroup_read_subtree_pids), that is (still) in @rel or below.
 * Returns how many, or -errno.
 */
int for_each_task(const struct cgroup_tree *tree, const char *rel, pid_t only, task_visit_fn fn,
		  void *ctx);

#endif
