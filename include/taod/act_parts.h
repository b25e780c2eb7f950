/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The act stage's building blocks: rate limits, back-off, smaps, pidfd-held
 * tasks, the THP levers and zone sizing. Its files share them, and the unit
 * tests exercise each one directly.
 */
#ifndef TAOD_ACT_PARTS_H
#define TAOD_ACT_PARTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "taod/act_backend.h"
#include "taod/machine_stats.h" /* HVO_SAVED_PER_THP */
#include "taod/mthp_split.h"

/* --- rate_limit.c: actions per minute and bytes per minute --- */
struct rate_limit {
	double actions; /* tokens left */
	double bytes;
	uint64_t last_ms;
	bool primed;
};

void rate_limit_refill(struct rate_limit *r, const struct act_settings *s, uint64_t now_ms);
bool rate_limit_action_left(const struct rate_limit *r);
uint64_t rate_limit_bytes_left(const struct rate_limit *r);
void rate_limit_take(struct rate_limit *r, uint64_t bytes);

/* --- backoff.c: exponential back-off per key after failures --- */
#define BACKOFF_BASE_MS 10000ULL
#define BACKOFF_MAX_MS	600000ULL

struct backoff_entry {
	char key[320];
	uint64_t retry_ms;
	unsigned failures;
};

struct backoff_table {
	struct backoff_entry *v;
	size_t n, cap;
};

void backoff_free(struct backoff_table *t);
/* Records a failure; returns the delay until the next try. */
uint64_t backoff_fail(struct backoff_table *t, const char *key, uint64_t now_ms);
void backoff_clear(struct backoff_table *t, const char *key);
/* Milliseconds still to wait, 0 when the key may be tried. */
uint64_t backoff_wait_ms(const struct backoff_table *t, const char *key, uint64_t now_ms);

/* --- reward_state.c: the last collapse asked for each cgroup --- */
struct reward_entry {
	char *cgroup;
	enum action_result result;
	uint64_t at_ms; /* monotonic */
	uint64_t gained_bytes;
	char detail[256];
};

struct reward_table {
	struct reward_entry *v;
	size_t n, cap;
};

void reward_table_put(struct reward_table *t, const char *cgroup, const struct act_outcome *o,
		      uint64_t now_ms);
/* NULL when no collapse was asked for @cgroup (or it was forgotten). */
const struct reward_entry *reward_table_get(const struct reward_table *t, const char *cgroup);
void reward_table_free(struct reward_table *t);

/* --- free_blocks.c: room for a collapse --- */
/* Free blocks of 2 MiB (order 9 and up, counted in 2 MiB) outside DMA; 0 or -errno. */
int free_thp_blocks(const struct kernel_paths *k, uint64_t *out);

/* --- smaps.c: the mappings of a task --- */
struct vma_info {
	uint64_t start, end;
	uint64_t rss, anon, anon_huge; /* bytes */
	bool no_hugepage;	       /* VmFlags "nh": MADV_NOHUGEPAGE, MADV_COLLAPSE refused */
	bool anon_mapping;	       /* no backing file */
};

typedef int (*vma_visit_fn)(void *ctx, const struct vma_info *v);
/* Calls @fn for each mapping of an smaps file; non-zero from @fn stops. */
int smaps_scan(const char *path, vma_visit_fn fn, void *ctx);
/* All mappings of an smaps file in a malloc'd array (*out); count or -errno. */
int smaps_collect(const char *path, struct vma_info **out);

/* --- proc_tasks.c: tasks of a cgroup --- */
bool proc_task_exists(pid_t pid);
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

/* A task held by a pidfd (-1 under a fixture root, where pids are files). */
struct task_ref {
	pid_t pid;
	int pidfd;
};

#define ACT_MAX_TASKS 4096

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
 * cgroup.procs, that is (still) in @rel. Returns how many, or -errno.
 */
int for_each_task(const struct cgroup_tree *tree, const char *rel, pid_t only, task_visit_fn fn,
		  void *ctx);

/* --- thp_collapse.c: process_madvise(MADV_COLLAPSE), both kernels --- */
/*
 * RESULT_DONE when the tasks' THP bytes grew (o->gained_bytes), RESULT_NO_GAIN
 * when nothing was collapsed (o->kernel_untouched when nothing was even
 * advised), RESULT_FAILED when the kernel refused and nothing grew.
 */
void thp_collapse_cgroup(const struct act_ctx *c, const struct action_request *req, uint64_t budget,
			 struct act_outcome *o);
/* Tests play the kernel's part: @fn answers process_madvise(MADV_COLLAPSE). */
struct iovec;
typedef long (*collapse_hook_fn)(void *ctx, pid_t pid, const struct iovec *iov, int n);
void thp_collapse_set_hook(collapse_hook_fn fn, void *ctx);

/* --- thp_chunks.c: the 2 MiB chunks of a mapping that hold THP pages --- */
/*
 * Chunks read per task and action at most: a tenant mapping terabytes of
 * sparse address space (ASan's shadow is 14 TiB) must not stall taod.
 * 2^18 chunks: 512 GiB of address space, about 0.3 s of reads.
 */
#define THP_SCAN_MAX_CHUNKS (1ULL << 18)

struct thp_pagemaps {
	int pagemap, kpageflags;
	uint64_t chunks_left; /* THP_SCAN_MAX_CHUNKS at open */
};

/* /proc/PID/pagemap and /proc/kpageflags under the root; 0 or -errno. */
int thp_pagemaps_open(pid_t pid, struct thp_pagemaps *m);
void thp_pagemaps_close(struct thp_pagemaps *m);
/* @chunk: 2 MiB-aligned; @page: a mapped page of a THP in it. >0 stops, <0 fails. */
typedef int (*thp_chunk_fn)(void *ctx, uint64_t chunk, uint64_t page);
/* Partly mapped: splitting frees the pages it no longer maps. Whole: all 512. */
enum thp_chunk_kind { THP_CHUNK_PARTIAL, THP_CHUNK_WHOLE };
/*
 * Calls @fn for each 2 MiB chunk of [start, end) of kind @want that maps a
 * page of a THP (PMD- or PTE-mapped). Stops once @present_max pages were
 * seen mapped (the mapping's Rss: the rest is empty; 0: no bound). Returns
 * 0, @fn's error, or -errno (-EPERM: the kernel hides PFNs from this
 * caller; -E2BIG: the scan budget is spent).
 */
int thp_chunks_scan(struct thp_pagemaps *m, uint64_t start, uint64_t end, uint64_t present_max,
		    enum thp_chunk_kind want, thp_chunk_fn fn, void *ctx);

/* What the page tables hold in one 2 MiB chunk (or the part of it in a mapping). */
struct thp_chunk_view {
	uint64_t present;  /* pages mapped */
	uint64_t thp_page; /* the first mapped page of a THP, 0 if none */
	bool whole;	   /* all 512 pages map one THP, in order: PMD-mapped */
};

/* Reads [from, to), within one chunk, into @v. 0, or -errno as thp_chunks_scan. */
int thp_chunk_look(struct thp_pagemaps *m, uint64_t from, uint64_t to, struct thp_chunk_view *v);

/* --- thp_split_pageout.c: the stock split where debugfs is locked down --- */
#define PAGEOUT_BATCH 64
/* MADV_PAGEOUT of one page of each of @n THPs splits them; 0 or -errno. */
long thp_pageout_pages(const struct task_ref *t, const uint64_t *pages, int n);

/* --- backend_stock.c: the page-table split, also the boot-zone TAO shatter --- */
struct split_tally {
	uint64_t bytes, partial_bytes; /* THP bytes asked to split; of them partly mapped */
	int tasks, writes, failed, err;
	bool pageout; /* debugfs refused: MADV_PAGEOUT did it */
	/* Below the PMD size (@req->sizes with POLICY_SIZES_MTHP): the
	 * mappings written and the kernel's per-size split deltas. */
	struct mthp_split_tally mthp;
};

/*
 * Splits the THPs of @req's task (or its cgroup's tasks) within @budget
 * through debugfs split_huge_pages, or MADV_PAGEOUT where debugfs is
 * refused. 0 with @t filled (some writes may have failed), or -errno with
 * @o set to the failure when nothing could be split.
 */
int thp_split_offender(const struct act_ctx *c, const struct action_request *req, uint64_t budget,
		       struct split_tally *t, struct act_outcome *o);
/* How the split went: the debugfs file, or MADV_PAGEOUT. */
const char *thp_split_via(const struct act_ctx *c, const struct split_tally *t);

/* --- split_shatter.c: shatter where the kernel has no memory.thp_shatter --- */
/*
 * Splits the offender's THPs (thp_split_offender) and records the vmstat
 * deltas around it in @o->shatter: the kernel shatters the folios that
 * live in a policy zone. Compacts afterwards (compact_after_shatter) only
 * where some THP was split rather than shattered.
 */
void tao_split_shatter(const struct act_ctx *c, const struct action_request *req, uint64_t budget,
		       struct act_outcome *o);

/* --- contiguity.c: free 2 MiB blocks back after a stock shatter --- */
/*
 * Drains the per-CPU free lists, compacts memory and drains again, so the
 * subpages a split freed merge into free 2 MiB blocks. Machine-wide writes;
 * says what it did in @note. 0, or the first -errno.
 */
int contiguity_restore(const struct kernel_paths *k, char *note, size_t len);

/* --- zone_sizing.c --- */
#define ZONE_KEEP UINT64_MAX

struct zone_targets {
	uint64_t nosplit, nomerge; /* bytes, or ZONE_KEEP */
};

/* Targets from the THP demand of guaranteed cgroups, within bounds. */
void zone_plan(const struct act_settings *s, uint64_t demand, struct zone_targets *t);
/* Moves memory blocks until the zones reach @t (or busy blocks/floor stop it). */
void zone_resize(const struct act_ctx *c, const struct zone_targets *t, struct act_outcome *o);
/* Bytes of online memory blocks in @zone, and the block size (may be NULL). */
int zone_online_bytes(const struct act_ctx *c, const char *zone, uint64_t *out,
		      uint64_t *block_size);

#define THP_BYTES (2ULL << 20)

#endif
