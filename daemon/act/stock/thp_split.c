// SPDX-License-Identifier: GPL-2.0
/*
 * The page-table split: an offending task's THPs split through debugfs
 * split_huge_pages, over the 2 MiB chunks its page tables say hold THP
 * pages (partly unmapped ones too), so the subpages it no longer maps go
 * back; MADV_PAGEOUT where debugfs is refused. Only anonymous THPs: a
 * file's large folios are page cache every mapper of the file shares (a
 * private file mapping is written a page at a time, never a whole range).
 * A THP counts as split when the page tables, read again after the write,
 * no longer map it: what the kernel did, not what was asked. The stock
 * backend's shatter and the TAO backend's boot-zone shatter
 * (split_shatter.c) both run it.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "thp_split.h"
#include "act/read/smaps.h"
#include "act/read/proc_tasks.h"
#include "act/read/thp_chunks.h"
#include "thp_split_pageout.h"
#include "common/log.h"
#include "act/act_time.h"
#include "act/debugfs_mount.h"
#include "common/rootfs.h"
#include "config/policy.h" /* POLICY_SIZES_* */

struct split_run {
	const struct task_ref *task;
	const char *path; /* split_huge_pages, root prefix included */
	uint64_t budget, bytes;
	int writes, failed, err;
	bool pageout; /* debugfs refused: split through MADV_PAGEOUT */
	struct thp_pagemaps maps;
	uint64_t vma_start, vma_end;
	uint64_t range_start, range_end; /* chunks found, not yet written */
	uint64_t pages[PAGEOUT_BATCH];	 /* pageout: one page of each THP */
	int npages;
	int vma_chunks;	      /* chunks found in this mapping */
	bool exact;	      /* a file's mapping: each write one page of an anonymous THP */
	uint64_t smaps_asked; /* bytes written from smaps alone (no PFNs to check) */
	enum thp_chunk_kind pass;
	uint64_t partial_bytes;	  /* of s->bytes, partly mapped THPs */
	int unreadable, read_err; /* live tasks whose smaps could not be read */
	/* Folios below the PMD size too (a policy with sizes = mthp or all);
	 * PMD THPs too unless @mthp_only. */
	bool mthp, mthp_only;
	const struct kernel_paths *k;
	struct mthp_split_tally mthp_t;
	uint64_t mthp_bytes; /* split below the PMD size, per the kernel's stats */
	struct act_time time;
	bool page_check; /* what split is read back from the page tables (SPLIT_CHECK_PAGES) */
};

/* debugfs closed (lockdown: EPERM), absent (ENOENT), or not writable in a
 * sandbox (EACCES, EROFS): the other way is open. */
static bool debugfs_refused(int r)
{
	return r == -EPERM || r == -EACCES || r == -ENOENT || r == -EROFS;
}

static void split_failed(struct split_run *s, int err, uint64_t bytes)
{
	s->failed++;
	s->err = err;
	s->bytes -= bytes;
}

/*
 * The bytes of [start, end) whose chunk still maps an anonymous THP after
 * a split of it: not split after all (pinned, or the task gone). The check
 * reads at most the chunks just written, outside the scan's budget.
 */
static uint64_t still_thp(struct split_run *s, uint64_t start, uint64_t end)
{
	uint64_t left = 0, budget = s->maps.chunks_left;

	if (!s->page_check)
		return 0;
	s->maps.chunks_left = THP_SCAN_MAX_CHUNKS;
	for (uint64_t chunk = start & ~(THP_BYTES - 1); chunk < end; chunk += THP_BYTES) {
		struct thp_chunk_view v;
		uint64_t from = chunk > start ? chunk : start;
		uint64_t to = chunk + THP_BYTES < end ? chunk + THP_BYTES : end;

		if (thp_chunk_look(&s->maps, from, to, &v) || v.thp_page)
			left += THP_BYTES;
	}
	s->maps.chunks_left = budget;
	/* Read by pid: believed only if the task outlived the reads. */
	return task_ref_alive(s->task) ? left : (end - start + THP_BYTES - 1) & ~(THP_BYTES - 1);
}

static void flush_pages(struct split_run *s)
{
	long r;

	if (!s->npages)
		return;
	r = thp_pageout_pages(s->task, s->pages, s->npages);
	if (r) {
		split_failed(s, (int)-r, (uint64_t)s->npages * THP_BYTES);
	} else {
		s->writes++;
		for (int i = 0; i < s->npages; i++)
			s->bytes -= still_thp(s, s->pages[i], s->pages[i] + 4096);
	}
	s->npages = 0;
}

static int on_chunk(void *ctx, uint64_t chunk, uint64_t page);

/* Writes one debugfs split of [start, end); false once debugfs refuses. */
static bool split_write(struct split_run *s, uint64_t start, uint64_t end)
{
	char cmd[96];
	int r;

	/* debugfs takes a pid: held by the pidfd across the write, or not written. */
	if (!task_ref_alive(s->task)) {
		split_failed(s, ESRCH, 0);
		return true;
	}
	snprintf(cmd, sizeof(cmd), "%d,0x%llx,0x%llx", (int)s->task->pid, (unsigned long long)start,
		 (unsigned long long)end);
	r = write_file(s->path, cmd);
	if (r && debugfs_refused(r)) {
		log_repeated(LOG_REPEAT_DEBUGFS_FALLBACK, LOG_INFO,
			     "%s: %s; splitting through MADV_PAGEOUT instead", s->path,
			     strerror(-r));
		s->pageout = true;
		return false;
	}
	if (r)
		s->failed++, s->err = -r;
	else
		s->writes++;
	return true;
}

/* The chunks gathered so far, as one debugfs write within the mapping. */
static void flush_range(struct split_run *s)
{
	uint64_t start = s->range_start > s->vma_start ? s->range_start : s->vma_start;
	uint64_t end = s->range_end < s->vma_end ? s->range_end : s->vma_end;
	uint64_t bytes = s->range_end - s->range_start;
	int failed = s->failed;

	if (!bytes)
		return;
	bytes = (bytes + THP_BYTES - 1) & ~(THP_BYTES - 1); /* an exact range: one THP */
	s->range_start = s->range_end = 0;
	if (split_write(s, start, end)) {
		s->bytes -= s->failed != failed ? bytes : still_thp(s, start, end);
		return;
	}
	/* Refused: the same chunks again, one page of each paged out. */
	s->bytes -= bytes;
	thp_chunks_scan(&s->maps, start, end, 0, s->pass, on_chunk, s);
}

static int on_chunk(void *ctx, uint64_t chunk, uint64_t page)
{
	struct split_run *s = ctx;

	if (s->budget - s->bytes < THP_BYTES || act_time_up(&s->time))
		return 1;
	s->bytes += THP_BYTES;
	s->vma_chunks++;
	if (!s->pageout && !s->exact && s->range_end && s->range_end == chunk) {
		s->range_end += THP_BYTES;
		return 0;
	}
	flush_range(s); /* may find debugfs refused: then this chunk is paged out too */
	if (s->pageout) {
		s->pages[s->npages++] = page;
		if (s->npages == PAGEOUT_BATCH)
			flush_pages(s);
		return 0;
	}
	/* In a file's mapping the range is the THP's page alone: debugfs splits
	 * every large folio in a range, the file's shared ones too. */
	s->range_start = s->exact ? page : chunk;
	s->range_end = s->exact ? page + 4096 : chunk + THP_BYTES;
	if (s->exact)
		flush_range(s);
	return 0;
}

/*
 * Without pagemap (no PFNs for this caller, or a fixture without one) smaps
 * still names the PMD-mapped THPs: debugfs gets 2 MiB-aligned chunks of the
 * mapping, no longer than the budget left.
 */
static void split_range_smaps(struct split_run *s, const struct vma_info *v)
{
	uint64_t addr = (v->start + THP_BYTES - 1) & ~(THP_BYTES - 1), huge_left = v->anon_huge;

	while (!s->pageout && addr < v->end && huge_left && s->budget - s->bytes >= THP_BYTES) {
		uint64_t left = (s->budget - s->bytes) & ~(THP_BYTES - 1);
		uint64_t len = v->end - addr < left ? v->end - addr : left;
		/* At most the THPs the mapping holds, never more than the chunk. */
		uint64_t got = len < huge_left ? len : huge_left;
		int failed = s->failed;

		if (!split_write(s, addr, addr + len)) {
			split_failed(s, ENODATA, 0); /* MADV_PAGEOUT needs pagemap */
			return;
		}
		if (s->failed == failed) {
			s->bytes += got;
			s->smaps_asked += got;
			huge_left -= got;
		}
		addr += len;
	}
}

static void split_mapping(struct split_run *s, const struct vma_info *v, bool have_maps)
{
	int r = -ENODATA;

	/* MADV_NOHUGEPAGE (ASan's shadow): no THP unless smaps shows one. */
	if (!v->anon || (v->no_hugepage && !v->anon_huge))
		return;
	s->vma_start = v->start;
	s->vma_end = v->end;
	s->vma_chunks = 0;
	s->exact = v->file_backed;
	if (have_maps)
		r = thp_chunks_scan(&s->maps, v->start, v->end, v->rss / 4096, s->pass, on_chunk,
				    s);
	flush_range(s); /* a refused write leaves its chunks to flush_pages */
	flush_pages(s);
	/* smaps knows only PMD-mapped THPs: the whole ones (AnonHugePages: a
	 * file's mapping has none). */
	if (r < 0 && !s->vma_chunks && s->pass == THP_CHUNK_WHOLE)
		split_range_smaps(s, v);
}

/* The task's folios below the PMD size, a mapping at a time, within the
 * budget the PMD passes left. */
static void split_mthp(struct split_run *s, const struct vma_info *v, int n)
{
	for (int i = 0;
	     i < n && s->mthp && s->bytes + s->mthp_bytes < s->budget && !act_time_up(&s->time);
	     i++) {
		int64_t r;

		if (!task_ref_alive(s->task))
			return;
		r = mthp_split_mapping(s->k, s->path, s->task->pid, &v[i], &s->mthp_t);
		if (r < 0) {
			log_repeated(LOG_REPEAT_MTHP_SPLIT, LOG_INFO,
				     "%s: %s; no split below the PMD size", s->path,
				     strerror((int)-r));
			s->mthp = false;
			return;
		}
		s->mthp_bytes = (uint64_t)r;
	}
}

/* Without PFNs, what smaps says the writes split: its AnonHugePages drop. */
static void smaps_check(struct split_run *s, const char *path, const struct vma_info *v, int n)
{
	struct vma_info *after = NULL;
	uint64_t before = smaps_anon_huge(v, n), now, gone;
	int m;

	if (!s->smaps_asked || !s->page_check)
		return;
	m = smaps_collect(path, &after);
	now = m >= 0 && task_ref_alive(s->task) ? smaps_anon_huge(after, m) : before;
	gone = before > now ? before - now : 0;
	s->bytes -= gone < s->smaps_asked ? s->smaps_asked - gone : 0;
	s->smaps_asked = 0;
	free(after);
}

/*
 * Partly mapped THPs first: splitting them frees the pages the task no
 * longer maps. Then, with budget left, the whole ones: the task loses its
 * THPs' benefit. smaps and pagemap are read by pid: they are the task's if
 * the pidfd outlives the reads.
 */
static int split_task(void *ctx, const struct task_ref *t)
{
	struct split_run *s = ctx;
	struct vma_info *v = NULL;
	char rel[64], path[PATH_MAX];
	bool have_maps;
	int n;

	s->task = t;
	snprintf(rel, sizeof(rel), "/proc/%d/smaps", (int)t->pid);
	if (rootfs_path(path, sizeof(path), rel))
		return 0;
	n = smaps_collect(path, &v);
	/* Another user's task without CAP_SYS_PTRACE (EACCES): nothing to split
	 * is not the same as nothing split. */
	if (n < 0 && task_ref_alive(t)) {
		s->unreadable++;
		s->read_err = -n;
		return 0;
	}
	have_maps = thp_pagemaps_open(t->pid, &s->maps) == 0;
	for (s->pass = THP_CHUNK_PARTIAL; s->pass <= THP_CHUNK_WHOLE && n > 0 && !s->mthp_only;
	     s->pass++) {
		uint64_t before = s->bytes;

		for (int i = 0; i < n && s->budget - s->bytes >= THP_BYTES && task_ref_alive(t) &&
				!act_time_up(&s->time);
		     i++)
			split_mapping(s, &v[i], have_maps);
		if (s->pass == THP_CHUNK_PARTIAL)
			s->partial_bytes += s->bytes - before;
	}
	thp_pagemaps_close(&s->maps);
	smaps_check(s, path, v, n);
	split_mthp(s, v, n);
	free(v);
	return s->bytes + s->mthp_bytes >= s->budget || act_time_up(&s->time);
}

/* Nothing split and no write failed (no THP left within @budget): a "done"
 * would claim a punishment that never happened; no-gain also backs off. */
static bool split_found_nothing(const struct act_ctx *c, const struct split_tally *t,
				uint64_t budget, struct act_outcome *o)
{
	char small[192];

	if (o->bytes || t->failed)
		return false;
	mthp_split_text(&t->mthp, small, sizeof(small));
	act_outcome_set(o, RESULT_NO_GAIN, 0,
			"split no THP of %d task(s): none found within %llu bytes of budget "
			"(via %s)%s%s",
			t->tasks, (unsigned long long)budget, thp_split_via(c, t),
			t->timed_out ? ACT_TIME_NOTE : "", small);
	return true;
}

int thp_split_offender(const struct act_ctx *c, const struct action_request *req, uint64_t budget,
		       enum split_check check, struct split_tally *t, struct act_outcome *o)
{
	char path[PATH_MAX];
	struct split_run s = {
	    .path = path, .budget = budget, .k = c->k, .page_check = check == SPLIT_CHECK_PAGES};
	int n;

	memset(t, 0, sizeof(*t));
	if (rootfs_path(path, sizeof(path), c->k->split_huge_pages)) {
		act_outcome_set(o, RESULT_FAILED, ENAMETOOLONG, "%s: path too long",
				c->k->split_huge_pages);
		return -ENAMETOOLONG;
	}
	/* Off the loop the actor mounted it before the child; here, in the
	 * caller (tests, no loop), it is mounted now. */
	debugfs_mount_for_split(c->k, path);
	act_time_start(&s.time, c);
	if (req->sizes & POLICY_SIZES_MTHP) {
		s.mthp = mthp_split_begin(c->k, &s.mthp_t);
		s.mthp_only = !(req->sizes & POLICY_SIZES_PMD);
	}
	n = for_each_task(c->tree, req->cgroup, req->pid, split_task, &s);
	if (n < 0) {
		act_outcome_set(o, RESULT_FAILED, -n, "cannot list tasks of %s", req->cgroup);
		return n;
	}
	*t = (struct split_tally){.bytes = s.bytes,
				  .partial_bytes = s.partial_bytes,
				  .tasks = n,
				  .writes = s.writes,
				  .failed = s.failed,
				  .err = s.err,
				  .pageout = s.pageout,
				  .timed_out = s.time.up,
				  .mthp = s.mthp_t};
	o->bytes = s.bytes + s.mthp_bytes; /* the rate limit pays for both */
	o->shatter.split_counted = true;
	o->shatter.bytes_split = s.bytes;
	o->shatter.thps_split = s.bytes / THP_BYTES;
	o->shatter.partial_thps = s.partial_bytes / THP_BYTES;
	if (s.unreadable && !s.bytes && !s.mthp_bytes) {
		act_outcome_set(o, RESULT_FAILED, s.read_err,
				"cannot read the smaps of %d task(s): %s", s.unreadable,
				smaps_read_error(s.read_err));
		return -s.read_err;
	}
	if (s.failed && !s.writes) {
		act_outcome_set(o, RESULT_FAILED, s.err, "%s: %s", thp_split_via(c, t),
				strerror(s.err));
		return -s.err;
	}
	return split_found_nothing(c, t, budget, o);
}

const char *thp_split_via(const struct act_ctx *c, const struct split_tally *t)
{
	return t->pageout ? "MADV_PAGEOUT (debugfs refused)" : c->k->split_huge_pages;
}
