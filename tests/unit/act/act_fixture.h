/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A TAO kernel as files in a temporary root: zoneinfo with NoSplit and
 * NoMerge, vmstat, meminfo, memory blocks, a cgroup v2 tree with the TAO
 * memcg files, and one task. A write hook records every write taod makes
 * (and plays the kernel's part for memory block state), or fails chosen
 * ones with an errno.
 */
#ifndef TAOD_TEST_ACT_FIXTURE_H
#define TAOD_TEST_ACT_FIXTURE_H

#include <stdbool.h>
#include <stdint.h>

#include "act/act.h"
#include "config/config.h"

#include "../support/scratch.h"

#define FIX_PID	   4242
#define FIX_BLOCK  (128ULL << 20)
#define PM_PRESENT (1ULL << 63)
#define KPF_THP	   (1ULL << 22)
#define KPF_ANON   (1ULL << 12)

struct act_fixture {
	char root[SCRATCH_DIR_MAX];
	struct taod_config cfg;
	struct cgroup_tree tree;
	struct actor *actor;
	char writes[8192]; /* "path=value\n" per write, paths under the root */
	char fail_path[256];
	int fail_err;
	int fail_count; /* writes failed so far */
	/* The kernel's side of a split_huge_pages write: /proc/vmstat becomes
	 * this text (the counters a real split moves); empty: unchanged. */
	char split_vmstat[512];
	/* The kernel splits nothing a split_huge_pages write names (pinned
	 * folios); false: the pages of its range stop being THPs' pages. */
	bool split_keeps_thps;
};

extern struct act_fixture fx;
extern uint64_t fx_now;

void fx_setup(void);
void fx_teardown(void);
/* Opens the actor with fx.cfg.enforce and @be. */
void fx_open(const struct act_backend_ops *be);
void fx_file(const char *rel, const char *text);
/* Fail writes to @rel (under the root) with -@err. */
void fx_fail(const char *rel, int err);
/* Every file under the root, concatenated with names: a before/after snapshot. */
char *fx_snapshot(void);
/* Writes @v as the @index-th u64 of @rel (pagemap, kpageflags). */
void fx_put_u64(const char *rel, uint64_t index, uint64_t v);
/* The page at @addr of the fixture task is mapped to @pfn, an anonymous THP's or not. */
void fx_map_page(uint64_t addr, uint64_t pfn, bool thp);
/* The fixture task's smaps as at setup (a split lowers its AnonHugePages). */
void fx_task_smaps(void);
/* read_stats of a test backend with no counters: all zero. */
int fx_no_stats(const struct act_ctx *c, struct act_stats *out);
/* ... to @pfn of a file's large folio (page cache: KPF_THP without KPF_ANON). */
void fx_map_file_page(uint64_t addr, uint64_t pfn);
/* The chunk at @addr maps all 512 pages of the THP at @pfn (PMD-mapped). */
void fx_map_whole(uint64_t addr, uint64_t pfn);
struct action_request fx_req(enum action_kind kind, const char *cgroup, pid_t pid, uint64_t bytes);
/* fx_req(...) through the actor's gate, as decide and `taoctl act` submit. */
enum action_result fx_submit(enum action_kind kind, const char *cgroup, pid_t pid, uint64_t bytes,
			     struct action_record *rec);

#endif
