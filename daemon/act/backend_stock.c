// SPDX-License-Identifier: GPL-2.0
/*
 * The stock-kernel backend. Shatter stands in as splitting an offending
 * task's THPs through debugfs split_huge_pages, over the ranges smaps says
 * hold THPs, so the subpages it no longer maps go back. Collapse is
 * process_madvise(MADV_COLLAPSE). There are no policy zones to restrict,
 * grant or size (ZONE_MOVABLE sizing is left out on stock).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

#include "taod/act_parts.h"
#include "taod/log.h"
#include "taod/rootfs.h"

struct split_run {
	const struct task_ref *task;
	const char *path; /* split_huge_pages, root prefix included */
	uint64_t budget, bytes;
	int ranges, failed, err;
	bool pageout; /* debugfs refused: split through MADV_PAGEOUT */
};

/* debugfs closed (lockdown: EPERM) or absent: the other way is open. */
static bool debugfs_refused(int r)
{
	return r == -EPERM || r == -EACCES || r == -ENOENT;
}

static int split_range_pageout(struct split_run *s, const struct vma_info *v)
{
	uint64_t done = 0;
	long r = thp_split_by_pageout(s->task, v->start, v->end, s->budget - s->bytes, &done);

	if (r) {
		s->failed++;
		s->err = (int)-r;
		return 0;
	}
	s->ranges++;
	s->bytes += done;
	return 0;
}

/* Writes one debugfs split of [start, end); false once debugfs refuses. */
static bool split_chunk(struct split_run *s, uint64_t start, uint64_t end)
{
	char cmd[96];
	int r;

	/* debugfs takes a pid: held by the pidfd across the write, or not written. */
	if (!task_ref_alive(s->task)) {
		s->failed++;
		s->err = ESRCH;
		return true;
	}
	snprintf(cmd, sizeof(cmd), "%d,0x%llx,0x%llx", (int)s->task->pid, (unsigned long long)start,
		 (unsigned long long)end);
	r = write_file(s->path, cmd);
	if (r && debugfs_refused(r)) {
		log_info("%s: %s; splitting through MADV_PAGEOUT instead", s->path, strerror(-r));
		s->pageout = true;
		return false;
	}
	if (r) {
		s->failed++;
		s->err = -r;
	}
	return true;
}

/*
 * debugfs splits every THP in the range it is given, so a mapping is cut
 * into 2 MiB-aligned chunks no longer than the budget left: the bytes split
 * never exceed the budget, whatever the mapping holds.
 */
static int split_range(void *ctx, const struct vma_info *v)
{
	struct split_run *s = ctx;
	uint64_t addr = (v->start + THP_BYTES - 1) & ~(THP_BYTES - 1), huge_left = v->anon_huge;

	if (!v->anon_huge)
		return 0;
	if (s->budget - s->bytes < THP_BYTES)
		return 1;
	if (s->pageout)
		return split_range_pageout(s, v);
	while (addr < v->end && huge_left && s->budget - s->bytes >= THP_BYTES) {
		uint64_t left = (s->budget - s->bytes) & ~(THP_BYTES - 1);
		uint64_t len = v->end - addr < left ? v->end - addr : left;
		int failed = s->failed;

		if (!split_chunk(s, addr, addr + len))
			return split_range_pageout(s, v);
		if (s->failed == failed) {
			/* At most the THPs the mapping holds, never more than the chunk. */
			uint64_t got = len < huge_left ? len : huge_left;

			s->ranges++;
			s->bytes += got;
			huge_left -= got;
		}
		addr += len;
	}
	return 0;
}

/* debugfs may be unmounted; mount it, but only on the real root. */
static void ensure_debugfs(const struct act_ctx *c, const char *path)
{
	if (!access(path, F_OK) || strcmp(rootfs_get(), "/"))
		return;
	if (mount("debugfs", c->k->debugfs, "debugfs", 0, NULL))
		log_warn("mounting debugfs at %s: %s", c->k->debugfs, strerror(errno));
	else
		log_info("mounted debugfs at %s for split_huge_pages", c->k->debugfs);
}

/* smaps is read by pid: its ranges are this task's if the pidfd outlives the read. */
static int split_task(void *ctx, const struct task_ref *t)
{
	struct split_run *s = ctx;
	struct vma_info *v = NULL;
	char rel[64], path[PATH_MAX];
	int n;

	s->task = t;
	snprintf(rel, sizeof(rel), "/proc/%d/smaps", (int)t->pid);
	if (rootfs_path(path, sizeof(path), rel))
		return 0;
	n = smaps_collect(path, &v);
	if (n > 0 && task_ref_alive(t))
		for (int i = 0; i < n && !split_range(s, &v[i]); i++)
			;
	free(v);
	return s->bytes >= s->budget;
}

static void stock_shatter(const struct act_ctx *c, const struct action_request *req,
			  uint64_t budget, struct act_outcome *o)
{
	char path[PATH_MAX];
	struct split_run s = {.path = path, .budget = budget};
	int n;

	if (rootfs_path(path, sizeof(path), c->k->split_huge_pages)) {
		act_outcome_set(o, RESULT_FAILED, ENAMETOOLONG, "%s: path too long",
				c->k->split_huge_pages);
		return;
	}
	ensure_debugfs(c, path);
	n = for_each_task(c->tree, req->cgroup, req->pid, split_task, &s);
	if (n < 0) {
		act_outcome_set(o, RESULT_FAILED, -n, "cannot list tasks of %s", req->cgroup);
		return;
	}
	o->bytes = s.bytes;
	if (s.failed && !s.ranges)
		act_outcome_set(o, RESULT_FAILED, s.err, "%s: %s", c->k->split_huge_pages,
				strerror(s.err));
	else
		act_outcome_set(o, RESULT_DONE, s.failed ? s.err : 0,
				"split %d THP ranges (%llu bytes) of %d task(s) via %s%s", s.ranges,
				(unsigned long long)s.bytes, n,
				s.pageout ? "MADV_PAGEOUT (debugfs refused)"
					  : c->k->split_huge_pages,
				s.failed ? ", some writes failed" : "");
}

static void stock_unsupported(const struct act_ctx *c, const struct action_request *req,
			      uint64_t budget, struct act_outcome *o)
{
	(void)c;
	(void)budget;
	act_outcome_set(o, RESULT_UNSUPPORTED, 0,
			"%s needs the TAO kernel's policy zones; the stock backend has none",
			action_kind_name(req->kind));
}

static int stock_read_stats(const struct act_ctx *c, struct act_stats *out)
{
	(void)c;
	memset(out, 0, sizeof(*out));
	return 0;
}

const struct act_backend_ops backend_stock_ops = {
    .name = "stock",
    .restrict_zones = stock_unsupported,
    .grant = stock_unsupported,
    .shatter = stock_shatter,
    .collapse = thp_collapse_cgroup,
    .resize_zones = stock_unsupported,
    .read_stats = stock_read_stats,
};
