// SPDX-License-Identifier: GPL-2.0
/*
 * Reward for a cgroup below its coverage guarantee, on any kernel since
 * 6.1: process_madvise(MADV_COLLAPSE) over its tasks' THP-eligible
 * anonymous ranges that are not THP-backed yet, within a byte budget.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <unistd.h>

#include "taod/act_parts.h"
#include "taod/rootfs.h"

#ifndef MADV_COLLAPSE
#define MADV_COLLAPSE 25
#endif
#define COLLAPSE_IOV_MAX 64

struct collapse_plan {
	struct iovec iov[COLLAPSE_IOV_MAX];
	int n;
	uint64_t budget, planned; /* bytes of base pages to collapse */
};

/*
 * Keeps the 2 MiB-aligned part of each anonymous range that has base
 * pages. MADV_COLLAPSE does not depend on the sysfs "enabled" mode (so
 * THPeligible, which reflects faults, is not the test); it only refuses
 * ranges marked MADV_NOHUGEPAGE.
 */
static int plan_range(void *ctx, const struct vma_info *v)
{
	struct collapse_plan *p = ctx;
	uint64_t start = (v->start + THP_BYTES - 1) & ~(THP_BYTES - 1);
	uint64_t end = v->end & ~(THP_BYTES - 1);
	uint64_t base = v->anon > v->anon_huge ? v->anon - v->anon_huge : 0;
	uint64_t left = p->budget - p->planned;

	if (v->no_hugepage || !v->anon_mapping || !base || end <= start)
		return 0;
	if (base > left) { /* the part of the range the budget pays for */
		base = left;
		if (end - start > ((left + THP_BYTES - 1) & ~(THP_BYTES - 1)))
			end = start + ((left + THP_BYTES - 1) & ~(THP_BYTES - 1));
	}
	p->iov[p->n].iov_base = (void *)(uintptr_t)start;
	p->iov[p->n].iov_len = end - start;
	p->n++;
	p->planned += base;
	return p->n == COLLAPSE_IOV_MAX || p->planned >= p->budget;
}

/* Returns bytes advised, or -errno. */
static long collapse_task(const struct task_ref *t, struct collapse_plan *p)
{
	long r;

	if (!pids_are_real() || t->pidfd < 0)
		return -EXDEV;
	r = syscall(SYS_process_madvise, t->pidfd, p->iov, (size_t)p->n, MADV_COLLAPSE, 0);
	return r < 0 ? -errno : r;
}

struct collapse_run {
	uint64_t budget, planned;
	int ranges, err, tasks;
};

static int collapse_one(void *ctx, const struct task_ref *t)
{
	struct collapse_run *run = ctx;
	struct collapse_plan p = {.budget = run->budget - run->planned};
	char rel[64], path[PATH_MAX];
	long r;

	snprintf(rel, sizeof(rel), "/proc/%d/smaps", (int)t->pid);
	if (rootfs_path(path, sizeof(path), rel) || smaps_scan(path, plan_range, &p) < 0 || !p.n ||
	    !task_ref_alive(t)) /* the plan came from this task's smaps */
		return 0;
	r = collapse_task(t, &p);
	if (r < 0)
		run->err = (int)-r;
	run->tasks++;
	run->ranges += p.n;
	run->planned += p.planned;
	return run->planned >= run->budget;
}

void thp_collapse_cgroup(const struct act_ctx *c, const struct action_request *req, uint64_t budget,
			 struct act_outcome *o)
{
	struct collapse_run run = {.budget = budget};
	int n = for_each_task(c->tree, req->cgroup, req->pid, collapse_one, &run);

	if (n < 0) {
		act_outcome_set(o, RESULT_FAILED, -n, "cannot read %s/cgroup.procs: %s",
				req->cgroup, strerror(-n));
		return;
	}
	o->bytes = run.planned;
	if (!run.ranges)
		act_outcome_set(o, RESULT_DONE, 0, "nothing to collapse in %d tasks", n);
	else
		act_outcome_set(
		    o, run.err ? RESULT_FAILED : RESULT_DONE, run.err,
		    "MADV_COLLAPSE over %d ranges of %d tasks, %llu bytes of base pages%s%s",
		    run.ranges, run.tasks, (unsigned long long)run.planned, run.err ? ": " : "",
		    run.err ? strerror(run.err) : "");
}
