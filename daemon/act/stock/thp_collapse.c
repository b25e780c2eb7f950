// SPDX-License-Identifier: GPL-2.0
/*
 * Reward for a cgroup below its coverage guarantee, on any kernel since
 * 6.1: process_madvise(MADV_COLLAPSE) over the 2 MiB chunks of its tasks'
 * anonymous mappings that hold pages but are not PMD-mapped THPs yet (the
 * page tables say which: thp_chunks.c), within a byte budget. The THP
 * bytes of the advised tasks (smaps AnonHugePages) before and after say
 * what it gained: a collapse that gained nothing is not "done".
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <unistd.h>

#include "thp_collapse.h"
#include "act/read/smaps.h"
#include "act/read/proc_tasks.h"
#include "act/read/thp_chunks.h"
#include "act/act_time.h"
#include "common/rootfs.h"

#ifndef MADV_COLLAPSE
#define MADV_COLLAPSE 25
#endif
#define COLLAPSE_IOV_MAX 64

static collapse_hook_fn collapse_hook;
static void *collapse_hook_ctx;

void thp_collapse_set_hook(collapse_hook_fn fn, void *ctx)
{
	collapse_hook = fn;
	collapse_hook_ctx = ctx;
}

struct collapse_run {
	uint64_t budget, planned;	/* bytes of the chunks advised */
	uint64_t skipped;		/* bytes of chunks already PMD-mapped THPs */
	uint64_t thp_before, thp_after; /* AnonHugePages of the advised tasks */
	uint64_t thp_seen;		/* AnonHugePages of all tasks read */
	int ranges, calls, err, tasks;
	int unreadable, read_err; /* live tasks whose smaps could not be read */
	struct act_time time;
};

/* One task's chunks to advise, merged into ranges, advised COLLAPSE_IOV_MAX at a time. */
struct collapse_plan {
	struct iovec iov[COLLAPSE_IOV_MAX];
	int n;
	const struct task_ref *t;
	struct collapse_run *run;
};

/* Returns bytes advised, or -errno. */
static long collapse_task(const struct task_ref *t, const struct iovec *iov, int n)
{
	long r;

	if (collapse_hook)
		return collapse_hook(collapse_hook_ctx, t->pid, iov, n);
	if (!pids_are_real() || t->pidfd < 0)
		return -EXDEV;
	r = syscall(SYS_process_madvise, t->pidfd, iov, (size_t)n, MADV_COLLAPSE, 0);
	return r < 0 ? -errno : r;
}

/*
 * EAGAIN is MADV_COLLAPSE's passing reason (a page not yet on the LRU, a
 * lock held); the kernel's documentation says to try again. A few short
 * tries keep one busy moment from turning a reward into a failure.
 */
#define COLLAPSE_TRIES	    4
#define COLLAPSE_RETRY_USEC 20000

static long collapse_with_retry(const struct task_ref *t, const struct iovec *iov, int n)
{
	long r = -ESRCH;

	for (int i = 0; i < COLLAPSE_TRIES; i++) {
		if (i)
			usleep(COLLAPSE_RETRY_USEC);
		r = task_ref_alive(t) ? collapse_task(t, iov, n) : -ESRCH;
		if (r != -EAGAIN)
			break;
	}
	return r;
}

/* The plan came from this task's page tables: advised only while the pidfd holds it. */
static void flush_plan(struct collapse_plan *p)
{
	long r;

	if (!p->n)
		return;
	r = collapse_with_retry(p->t, p->iov, p->n);
	if (r < 0)
		p->run->err = (int)-r;
	p->run->calls++;
	p->run->ranges += p->n;
	p->n = 0;
}

static void plan_add(struct collapse_plan *p, uint64_t start, uint64_t len)
{
	struct iovec *last = p->n ? &p->iov[p->n - 1] : NULL;

	p->run->planned += len;
	if (last && (uint64_t)(uintptr_t)last->iov_base + last->iov_len == start) {
		last->iov_len += len;
		return;
	}
	if (p->n == COLLAPSE_IOV_MAX)
		flush_plan(p);
	p->iov[p->n].iov_base = (void *)(uintptr_t)start;
	p->iov[p->n].iov_len = len;
	p->n++;
}

static bool budget_left(const struct collapse_plan *p)
{
	return p->run->planned < p->run->budget && !act_time_up(&p->run->time);
}

/*
 * Without the page tables (PFNs hidden from this caller): the mapping's
 * 2 MiB-aligned part from its start, as long as the budget pays for;
 * MADV_COLLAPSE passes over the THPs already there.
 */
static void plan_range_smaps(struct collapse_plan *p, uint64_t start, uint64_t end)
{
	uint64_t left = p->run->budget - p->run->planned;

	left = (left + THP_BYTES - 1) & ~(THP_BYTES - 1);
	if (end - start > left)
		end = start + left;
	plan_add(p, start, end - start);
}

/*
 * Chunk by chunk: PMD-mapped THPs are skipped (collapsing them gains
 * nothing), and so are chunks with no page mapped (a collapse would fill
 * 2 MiB the task never touched). Stops at the mapping's Rss: the rest is
 * empty. Returns 0, or -errno when the page tables cannot be read.
 */
static int plan_chunks(struct collapse_plan *p, struct thp_pagemaps *m, const struct vma_info *v,
		       uint64_t start, uint64_t end)
{
	uint64_t seen = 0;

	for (uint64_t chunk = start; chunk < end && budget_left(p) && seen < v->rss / 4096;
	     chunk += THP_BYTES) {
		struct thp_chunk_view cv;
		int r = thp_chunk_look(m, chunk, chunk + THP_BYTES, &cv);

		if (r)
			return r;
		seen += cv.present;
		if (cv.whole)
			p->run->skipped += THP_BYTES;
		else if (cv.present)
			plan_add(p, chunk, THP_BYTES);
	}
	return 0;
}

/*
 * MADV_COLLAPSE does not depend on the sysfs "enabled" mode (so
 * THPeligible, which reflects faults, is not the test); it only refuses
 * ranges marked MADV_NOHUGEPAGE. A mapping whose resident pages are all
 * THPs already is passed over unread.
 */
static void plan_mapping(struct collapse_plan *p, struct thp_pagemaps *m, const struct vma_info *v)
{
	uint64_t start = (v->start + THP_BYTES - 1) & ~(THP_BYTES - 1);
	uint64_t end = v->end & ~(THP_BYTES - 1);
	uint64_t planned = p->run->planned;

	if (v->no_hugepage || !v->anon_mapping || v->anon <= v->anon_huge || end <= start)
		return;
	if (m && !plan_chunks(p, m, v, start, end))
		return;
	if (p->run->planned == planned) /* nothing from this mapping's page tables yet */
		plan_range_smaps(p, start, end);
}

/* AnonHugePages of the task now; @fallback when its smaps cannot be read. */
static uint64_t thp_bytes_now(const char *smaps, uint64_t fallback)
{
	struct vma_info *v = NULL;
	int n = smaps_collect(smaps, &v);
	uint64_t sum = n >= 0 ? smaps_anon_huge(v, n) : fallback;

	free(v);
	return sum;
}

static int collapse_one(void *ctx, const struct task_ref *t)
{
	struct collapse_run *run = ctx;
	struct collapse_plan p = {.t = t, .run = run};
	struct thp_pagemaps maps;
	struct vma_info *v = NULL;
	char rel[64], path[PATH_MAX];
	int calls = run->calls, n;
	bool have_maps;
	uint64_t before;

	snprintf(rel, sizeof(rel), "/proc/%d/smaps", (int)t->pid);
	if (rootfs_path(path, sizeof(path), rel))
		return 0;
	n = smaps_collect(path, &v);
	/* Another user's task without CAP_SYS_PTRACE (EACCES): not "nothing to
	 * collapse". */
	if (n < 0 && task_ref_alive(t)) {
		run->unreadable++;
		run->read_err = -n;
		return 0;
	}
	have_maps = n > 0 && thp_pagemaps_open(t->pid, &maps) == 0;
	for (int i = 0; i < n && budget_left(&p); i++)
		plan_mapping(&p, have_maps ? &maps : NULL, &v[i]);
	flush_plan(&p);
	if (have_maps)
		thp_pagemaps_close(&maps);
	before = n > 0 ? smaps_anon_huge(v, n) : 0;
	run->thp_seen += before;
	free(v);
	if (run->calls == calls)
		return 0;
	run->tasks++;
	run->thp_before += before;
	run->thp_after += thp_bytes_now(path, before);
	return !budget_left(&p);
}

static void collapse_said(struct act_outcome *o, const struct collapse_run *run, uint64_t gain)
{
	enum action_result r = gain ? RESULT_DONE : run->err ? RESULT_FAILED : RESULT_NO_GAIN;

	act_outcome_set(o, r, run->err,
			"collapsed %llu bytes (THP %llu -> %llu) by MADV_COLLAPSE over %d ranges "
			"(%llu bytes; %llu already THP skipped) of %d tasks%s%s%s",
			(unsigned long long)gain, (unsigned long long)run->thp_before,
			(unsigned long long)run->thp_after, run->ranges,
			(unsigned long long)run->planned, (unsigned long long)run->skipped,
			run->tasks, run->time.up ? ACT_TIME_NOTE : "", run->err ? ": " : "",
			run->err ? strerror(run->err) : "");
}

void thp_collapse_cgroup(const struct act_ctx *c, const struct action_request *req, uint64_t budget,
			 struct act_outcome *o)
{
	struct collapse_run run = {.budget = budget};
	int n;

	act_time_start(&run.time, c);
	n = for_each_task(c->tree, req->cgroup, req->pid, collapse_one, &run);

	if (n < 0) {
		act_outcome_set(o, RESULT_FAILED, -n, "cannot read %s/cgroup.procs: %s",
				req->cgroup, strerror(-n));
		return;
	}
	o->bytes = run.planned;
	if (!run.calls && run.unreadable) {
		o->kernel_untouched = true;
		act_outcome_set(o, RESULT_FAILED, run.read_err,
				"cannot read the smaps of %d of %d task(s): %s", run.unreadable, n,
				smaps_read_error(run.read_err));
		return;
	}
	if (!run.calls) {
		o->kernel_untouched = true;
		act_outcome_set(o, RESULT_NO_GAIN, 0,
				"nothing to collapse in %d tasks: what they map is THP already "
				"(%llu bytes) or not resident",
				n, (unsigned long long)run.thp_seen);
		return;
	}
	o->gained_bytes = run.thp_after > run.thp_before ? run.thp_after - run.thp_before : 0;
	collapse_said(o, &run, o->gained_bytes);
}
