// SPDX-License-Identifier: GPL-2.0
/*
 * The stock shatter over page tables: which chunks it splits (PMD- and
 * PTE-mapped THPs, found through a fixture pagemap and kpageflags), how it
 * merges them into debugfs writes within the budget, and the compaction
 * and per-CPU drain after it, write by write.
 */
#define _GNU_SOURCE
#include <criterion/criterion.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "../act_fixture.h"
#include "act/read/thp_chunks.h"
#include "act/stock/contiguity.h"
#include "config/policy.h"
#include "act/gate/audit.h"

#include <json-c/json.h>

#define SPLIT	 "/sys/kernel/debug/split_huge_pages"
#define COMPACT	 "/proc/sys/vm/compact_memory"
#define FRACTION "/proc/sys/vm/percpu_pagelist_high_fraction"

TestSuite(stock_split, .init = fx_setup, .fini = fx_teardown);

/*
 * The fixture's mappings (act_fixture.c): 0x7f00.. 4 MiB, 0x7f10.. 8 MiB,
 * 0x7f18.. 4 MiB (smaps: no AnonHugePages) and a heap of base pages.
 */
static void map_pages(void)
{
	fx_file("/proc/kpageflags", "");
	fx_file("/proc/4242/pagemap", "");
	fx_map_page(0x55d0c0000000, 0x5000, false);
	fx_map_whole(0x7f0000000000, 0x3000 * 512);
	fx_map_whole(0x7f0000200000, 0x3001 * 512);
	fx_map_whole(0x7f1000000000, 0x4000 * 512);
	fx_map_page(0x7f1000201000, 0x4400, false); /* a base page: chunk 1 holds no THP */
	/* Partly unmapped THPs: one page of each still mapped (PTE-mapped). */
	fx_map_page(0x7f1000400000, 0x4600, true);
	fx_map_page(0x7f1000600800, 0x4800, true);
	fx_map_page(0x7f1800001000, 0x6001, true);
	fx_map_page(0x7f1800200000, 0x7000, false);
}

static enum action_result shatter(uint64_t bytes, struct action_record *rec)
{
	return fx_submit(ACTION_SHATTER, "/app/a", FIX_PID, bytes, rec);
}

Test(stock_split, partly_mapped_thps_first_then_whole_ones)
{
	struct action_record rec;

	map_pages();
	fx_open(&backend_stock_ops);
	cr_assert_eq(shatter(0, &rec), RESULT_DONE, "%s", rec.detail);
	/* 0x7f18.. is MADV_NOHUGEPAGE ("nh") without AnonHugePages: not scanned. */
	cr_assert_str_eq(fx.writes, SPLIT "=4242,0x7f1000400000,0x7f1000800000\n" SPLIT
					  "=4242,0x7f0000000000,0x7f0000400000\n" SPLIT
					  "=4242,0x7f1000000000,0x7f1000200000\n");
	cr_assert(strstr(rec.detail, "split 5 THPs (10485760 bytes, 2 partly mapped)"), "%s",
		  rec.detail);
}

Test(stock_split, the_budget_goes_to_partly_mapped_thps_first)
{
	struct action_record rec;

	map_pages();
	fx_open(&backend_stock_ops);
	cr_assert_eq(shatter(7 << 20, &rec), RESULT_DONE, "%s", rec.detail);
	/* 3 THPs fit in 7 MiB: both partly mapped ones, then one whole one. */
	cr_assert_str_eq(fx.writes, SPLIT "=4242,0x7f1000400000,0x7f1000800000\n" SPLIT
					  "=4242,0x7f0000000000,0x7f0000200000\n");
	cr_assert(strstr(rec.detail, "split 3 THPs (6291456 bytes, 2 partly mapped)"), "%s",
		  rec.detail);
}

static int count_chunk(void *ctx, uint64_t chunk, uint64_t page)
{
	(void)chunk;
	(void)page;
	++*(int *)ctx;
	return 0;
}

/* Terabytes of sparse address space cost a bounded number of reads. */
Test(stock_split, the_scan_stops_at_its_budget_and_at_the_mappings_rss)
{
	struct thp_pagemaps m;
	int found = 0;

	map_pages();
	cr_assert_eq(thp_pagemaps_open(FIX_PID, &m), 0);
	m.chunks_left = 3;
	cr_assert_eq(thp_chunks_scan(&m, 0x7f1000000000, 0x7f1000800000, 0, THP_CHUNK_PARTIAL,
				     count_chunk, &found),
		     -E2BIG);
	cr_assert_eq(found, 1, "chunk 2 of 0x7f10.. is partly mapped, chunk 3 never read");
	/* The first chunk maps 512 pages: with an Rss of 512 pages, nothing after it. */
	m.chunks_left = THP_SCAN_MAX_CHUNKS;
	found = 0;
	cr_assert_eq(thp_chunks_scan(&m, 0x7f1000000000, 0x7f1000800000, 512, THP_CHUNK_PARTIAL,
				     count_chunk, &found),
		     0);
	cr_assert_eq(found, 0);
	thp_pagemaps_close(&m);
}

Test(stock_split, hidden_pfns_fall_back_to_pmd_mapped_thps)
{
	struct action_record rec;

	fx_file("/proc/kpageflags", "");
	fx_file("/proc/4242/pagemap", "");
	/* Present pages, PFNs shown as 0: the caller lacks CAP_SYS_ADMIN. */
	fx_put_u64("/proc/4242/pagemap", 0x7f0000000000 / 4096, PM_PRESENT);
	fx_put_u64("/proc/4242/pagemap", 0x7f1000000000 / 4096, PM_PRESENT);
	fx_open(&backend_stock_ops);
	cr_assert_eq(shatter(0, &rec), RESULT_DONE, "%s", rec.detail);
	/* The mappings smaps says hold PMD-mapped THPs, whole: not the third. */
	cr_assert_str_eq(fx.writes, SPLIT "=4242,0x7f0000000000,0x7f0000400000\n" SPLIT
					  "=4242,0x7f1000000000,0x7f1000800000\n");
}

/* Kernel lockdown (EPERM), or a sandbox's read-only debugfs (EROFS: what
 * ProtectKernelTunables left when the unit named only the directory). */
static void refused_debugfs_pages_out(int err)
{
	struct action_record rec;

	map_pages();
	fx_fail(SPLIT, err);
	fx_open(&backend_stock_ops);
	/* One refused write, then MADV_PAGEOUT, which a fixture's pid never gets. */
	cr_assert_eq(shatter(0, &rec), RESULT_FAILED, "%s", rec.detail);
	cr_assert_eq(fx.fail_count, 1);
	cr_assert_eq(rec.err, EXDEV, "%s", rec.detail);
}

Test(stock_split, refused_debugfs_pages_out_the_found_thps)
{
	refused_debugfs_pages_out(EPERM);
}

Test(stock_split, read_only_debugfs_pages_out_the_found_thps)
{
	refused_debugfs_pages_out(EROFS);
}

/* A clock 1 s further on at every reading: the shatter's time (10 s) is
 * up at its tenth look, once the partly mapped THPs are split. */
static uint64_t slow_now(void)
{
	return fx_now += 1000;
}

/* A shatter that works past an action's time stops where it is, says so,
 * and takes how long it took into the record. */
Test(stock_split, a_shatter_stops_when_its_time_is_up)
{
	struct action_record rec;

	map_pages();
	fx_open(&backend_stock_ops);
	actor_set_clock(fx.actor, slow_now);
	cr_assert_eq(shatter(0, &rec), RESULT_DONE, "%s", rec.detail);
	/* Unlimited, the same shatter splits 5 THPs in 3 writes. */
	cr_assert(strstr(rec.detail, "split 2 THPs (4194304 bytes, 2 partly mapped)"), "%s",
		  rec.detail);
	cr_assert_str_eq(fx.writes, SPLIT "=4242,0x7f1000400000,0x7f1000800000\n");
	cr_assert(strstr(rec.detail, ", stopped after 10 s (an action's time)"), "%s", rec.detail);
	cr_assert_geq(rec.took_ms, 10000);
}

/* A live task whose smaps cannot be read (another user's, no
 * CAP_SYS_PTRACE) fails the shatter: it is not "done, 0 THPs split". */
Test(stock_split, unreadable_smaps_of_a_live_task_fails)
{
	struct action_record rec;
	char path[PATH_MAX];

	map_pages();
	snprintf(path, sizeof(path), "%s/proc/4242/smaps", fx.root);
	cr_assert_eq(unlink(path), 0, "%s", path);
	fx_open(&backend_stock_ops);
	cr_assert_eq(shatter(0, &rec), RESULT_FAILED, "%s", rec.detail);
	cr_assert_eq(rec.err, ENOENT, "%s", rec.detail);
	cr_assert(strstr(rec.detail, "cannot read the smaps of 1 task(s)"), "%s", rec.detail);
	cr_assert_str_eq(fx.writes, "");
}

/* The fixture's THPs, the sysctl files, compact_after_shatter on, then the actor. */
static void open_compacting(void)
{
	map_pages();
	fx_file(COMPACT, "");
	fx_file(FRACTION, "0\n");
	fx.cfg.enforce.compact_after_shatter = 1;
	fx_open(&backend_stock_ops);
}

Test(stock_split, compaction_and_drain_follow_a_split_when_asked)
{
	struct action_record rec;

	open_compacting();
	actor_set_need(fx.actor, PRESSURE_SOME, 0);
	cr_assert_eq(shatter(2 << 20, &rec), RESULT_DONE, "%s", rec.detail);
	cr_assert_str_eq(fx.writes, SPLIT "=4242,0x7f1000400000,0x7f1000600000\n" FRACTION
					  "=1073741824\n" FRACTION "=0\n" COMPACT "=1\n" FRACTION
					  "=1073741824\n" FRACTION "=0\n");
	cr_assert(strstr(rec.detail, "compacted memory; drained per-CPU lists"), "%s", rec.detail);
}

/* Compaction is machine-wide: none without contiguity pressure, whatever
 * compact_after_shatter says (issue 25: 15 compactions in 4 minutes on a
 * machine with hundreds of free 2 MiB blocks). */
Test(stock_split, no_compaction_without_contiguity_pressure)
{
	struct action_record rec;

	open_compacting();
	cr_assert_eq(shatter(2 << 20, &rec), RESULT_DONE, "%s", rec.detail);
	cr_assert_str_eq(fx.writes, SPLIT "=4242,0x7f1000400000,0x7f1000600000\n");
	cr_assert(strstr(rec.detail, "no compaction: no contiguity pressure"), "%s", rec.detail);
}

/* A good tenant wanting THPs is need enough without pressure: the blocks
 * the split frees are of use only once compaction merges them (split alone
 * gave a wanting tenant nothing in the coverage experiment). */
Test(stock_split, compaction_follows_a_split_while_a_tenant_wants_thps)
{
	struct action_record rec;

	open_compacting();
	actor_set_need(fx.actor, PRESSURE_NONE, 1);
	cr_assert_eq(shatter(2 << 20, &rec), RESULT_DONE, "%s", rec.detail);
	cr_assert(strstr(fx.writes, COMPACT "=1\n"), "%s", fx.writes);
	cr_assert(strstr(rec.detail, "compacted memory"), "%s", rec.detail);
}

/* Under pressure, at most one compaction per compact_interval. */
Test(stock_split, compaction_at_most_once_per_interval)
{
	struct action_record rec;

	fx.cfg.enforce.compact_interval_ms = 60000;
	fx.cfg.enforce.actions_per_minute = 100;
	open_compacting();
	actor_set_need(fx.actor, PRESSURE_FULL, 0);
	cr_assert_eq(shatter(2 << 20, &rec), RESULT_DONE, "%s", rec.detail);
	cr_assert(strstr(fx.writes, COMPACT "=1\n"), "%s", fx.writes);
	fx.writes[0] = '\0';
	fx_now += 10000;
	cr_assert_eq(shatter(2 << 20, &rec), RESULT_DONE, "%s", rec.detail);
	cr_assert_null(strstr(fx.writes, COMPACT), "%s", fx.writes);
	cr_assert(strstr(rec.detail, "no compaction: the last was 10000 ms ago"), "%s", rec.detail);
	fx.writes[0] = '\0';
	fx_now += 50000;
	cr_assert_eq(shatter(2 << 20, &rec), RESULT_DONE, "%s", rec.detail);
	cr_assert(strstr(fx.writes, COMPACT "=1\n"), "%s", fx.writes);
}

/* A shatter that split nothing never compacts, pressure or not. */
Test(stock_split, no_compaction_after_a_shatter_that_split_nothing)
{
	struct act_ctx c = {.k = &fx.cfg.k, .s = &fx.cfg.enforce};
	struct compact_gate g = {.pressure = PRESSURE_FULL};
	char note[160];

	fx_file(COMPACT, "");
	fx_file(FRACTION, "0\n");
	fx.cfg.enforce.compact_after_shatter = 1;
	c.compact = &g;
	cr_assert_eq(contiguity_after_shatter(&c, 0, note, sizeof(note)), 0);
	cr_assert_str_eq(note, "no compaction: nothing was split");
	cr_assert_str_eq(fx.writes, "");
	fx.cfg.enforce.compact_after_shatter = 0;
	cr_assert_eq(contiguity_after_shatter(&c, 2 << 20, note, sizeof(note)), 0);
	cr_assert_str_eq(note, "");
	cr_assert_str_eq(fx.writes, "");
}

Test(stock_split, a_set_fraction_is_put_back)
{
	char note[160];

	fx_file(COMPACT, "");
	fx_file(FRACTION, "64\n");
	cr_assert_eq(contiguity_restore(&fx.cfg.k, NULL, note, sizeof(note)), 0);
	cr_assert_str_eq(fx.writes, FRACTION "=1073741824\n" FRACTION "=64\n" COMPACT
					     "=1\n" FRACTION "=1073741824\n" FRACTION "=64\n");
}

Test(stock_split, failed_compaction_is_reported_and_the_split_stands)
{
	struct action_record rec;

	map_pages();
	fx_file(FRACTION, "0\n");
	fx_file(COMPACT, "");
	fx_fail(COMPACT, EROFS);
	fx.cfg.enforce.compact_after_shatter = 1;
	fx_open(&backend_stock_ops);
	actor_set_need(fx.actor, PRESSURE_SOME, 0);
	cr_assert_eq(shatter(2 << 20, &rec), RESULT_DONE, "%s", rec.detail);
	cr_assert_eq(rec.err, EROFS);
	cr_assert(strstr(rec.detail, "compaction failed"), "%s", rec.detail);
	/* The fraction is put back all the same. */
	cr_assert(strstr(fx.writes,
			 FRACTION "=0\n" COMPACT "=1\n" FRACTION "=1073741824\n" FRACTION "=0\n"),
		  "%s", fx.writes);
}

/* Less than one THP of budget, or no THP left (the abuser's second shatter
 * after the first took them all): no-gain, which backs off, never "done,
 * split 0 THPs"; nothing split, nothing compacted. */
Test(stock_split, a_shatter_that_splits_nothing_is_no_gain_and_backs_off)
{
	struct action_record rec;

	fx_file(FRACTION, "0\n");
	fx_file(COMPACT, "");
	fx.cfg.enforce.compact_after_shatter = 1;
	fx_open(&backend_stock_ops);
	cr_assert_eq(shatter(1 << 20, &rec), RESULT_NO_GAIN, "%s", rec.detail);
	cr_assert_str_eq(fx.writes, "");
	cr_assert(strstr(rec.detail, "split no THP of 1 task(s): none found within 1048576 bytes"),
		  "%s", rec.detail);
	cr_assert(strstr(rec.detail, "; retry in "), "%s", rec.detail);
	cr_assert_eq(shatter(0, &rec), RESULT_BACKING_OFF, "%s", rec.detail);
}

/* A shatter for a policy with sizes = mthp: no PMD pass, a debugfs write
 * per anonymous mapping with no PMD THP (the heap: the others hold PMD
 * THPs or are MADV_NOHUGEPAGE), and the kernel's per-size split deltas in
 * the record. */
static enum action_result shatter_sizes(unsigned sizes, struct action_record *rec)
{
	struct action_request r = fx_req(ACTION_SHATTER, "/app/a", FIX_PID, 0);

	r.sizes = sizes;
	return actor_submit(fx.actor, &r, rec);
}

#define MTHP_SPLIT "/sys/kernel/mm/transparent_hugepage/hugepages-64kB/stats/split"

Test(stock_split, sizes_mthp_writes_mappings_without_pmd_thps_only)
{
	struct action_record rec;

	map_pages();
	fx_file(MTHP_SPLIT, "7\n");
	fx_open(&backend_stock_ops);
	/* The fixture's per-size stat does not move: the kernel split none. */
	cr_assert_eq(shatter_sizes(POLICY_SIZES_MTHP, &rec), RESULT_NO_GAIN, "%s", rec.detail);
	cr_assert_str_eq(fx.writes, SPLIT "=4242,0x55d0c0000000,0x55d0c0021000\n");
	cr_assert(strstr(rec.detail, "split no THP"), "%s", rec.detail);
	cr_assert(strstr(rec.detail, "; below the PMD: 1 mapping write(s), split none (kernel, "
				     "machine-wide)"),
		  "%s", rec.detail);
}

Test(stock_split, sizes_all_splits_pmd_thps_then_the_rest)
{
	struct action_record rec;

	map_pages();
	fx_file(MTHP_SPLIT, "7\n");
	fx_open(&backend_stock_ops);
	cr_assert_eq(shatter_sizes(POLICY_SIZES_PMD | POLICY_SIZES_MTHP, &rec), RESULT_DONE, "%s",
		     rec.detail);
	cr_assert_str_eq(fx.writes, SPLIT "=4242,0x7f1000400000,0x7f1000800000\n" SPLIT
					  "=4242,0x7f0000000000,0x7f0000400000\n" SPLIT
					  "=4242,0x7f1000000000,0x7f1000200000\n" SPLIT
					  "=4242,0x55d0c0000000,0x55d0c0021000\n");
	cr_assert(strstr(rec.detail, "split 5 THPs"), "%s", rec.detail);
}

/* 6.1: no per-size stats, no anonymous mTHP: nothing below the PMD is written. */
Test(stock_split, sizes_mthp_without_per_size_stats_writes_nothing)
{
	struct action_record rec;

	map_pages();
	fx_open(&backend_stock_ops);
	shatter_sizes(POLICY_SIZES_MTHP, &rec);
	cr_assert_str_eq(fx.writes, "");
	cr_assert_not(strstr(rec.detail, "below the PMD"), "%s", rec.detail);
}

/*
 * A tenant's private mapping of a file (its pages the file's large folios,
 * shared page cache, one copied page anonymous) and, above it, partly
 * unmapped anonymous THPs: only those are split and counted.
 */
static void map_file_and_anon(void)
{
	fx_file("/proc/4242/smaps",
		"7e0000000000-7e0000800000 rw-p 00000000 08:01 99 /srv/shared.db\n"
		"Rss:                8192 kB\nAnonymous:             4 kB\n"
		"AnonHugePages:         0 kB\n"
		"7f1000000000-7f1000400000 rw-p 00000000 00:00 0 \n"
		"Rss:                   8 kB\nAnonymous:             8 kB\n"
		"AnonHugePages:         0 kB\n");
	fx_file("/proc/kpageflags", "");
	fx_file("/proc/4242/pagemap", "");
	for (uint64_t c = 0; c < 4; c++)
		fx_map_file_page(0x7e0000000000 + c * THP_BYTES, 0x9000 + c * 512);
	fx_map_page(0x7e0000001000, 0x5001, false); /* the copied page */
	fx_map_page(0x7f1000000000, 0x4600, true);
	fx_map_page(0x7f1000201000, 0x4801, true);
}

/* A shatter of the whole budget gets @want, writes @writes (NULL: any) and says @detail. */
static void shatter_says(enum action_result want, const char *writes, const char *detail)
{
	struct action_record rec;

	fx_open(&backend_stock_ops);
	cr_assert_eq(shatter(0, &rec), want, "%s", rec.detail);
	if (writes)
		cr_assert_str_eq(fx.writes, writes);
	cr_assert(strstr(rec.detail, detail), "%s", rec.detail);
}

Test(stock_split, a_files_large_folios_are_neither_split_nor_counted)
{
	map_file_and_anon();
	shatter_says(RESULT_DONE, SPLIT "=4242,0x7f1000000000,0x7f1000400000\n",
		     "split 2 THPs (4194304 bytes, 2 partly mapped)");
}

/* An anonymous THP in a file's mapping is written a page at a time: a
 * range would split the file's folios beside it. */
Test(stock_split, an_anonymous_thp_in_a_files_mapping_is_split_alone)
{
	map_file_and_anon();
	fx_map_page(0x7e0000201000, 0x4a01, true);
	shatter_says(RESULT_DONE,
		     SPLIT "=4242,0x7e0000201000,0x7e0000202000\n" SPLIT
			   "=4242,0x7f1000000000,0x7f1000400000\n",
		     "split 3 THPs");
}

/* The writes went through, the kernel split nothing (pinned folios): no
 * THP is counted split, and nothing is charged. */
Test(stock_split, only_what_the_kernel_split_counts)
{
	map_pages();
	fx.split_keeps_thps = true;
	shatter_says(RESULT_NO_GAIN, NULL, "split no THP");
}

/* The audit record carries what was split as numbers, not in its text only. */
Test(stock_split, the_audit_record_counts_the_split)
{
	struct action_record rec;
	struct json_object *o, *s;

	map_pages();
	fx_open(&backend_stock_ops);
	cr_assert_eq(shatter(0, &rec), RESULT_DONE, "%s", rec.detail);
	o = action_record_json(&rec);
	cr_assert(json_object_object_get_ex(o, "split", &s), "%s", json_object_to_json_string(o));
	cr_assert_str_eq(
	    json_object_to_json_string_ext(s, JSON_C_TO_STRING_PLAIN),
	    "{\"bytes\":10485760,\"thps\":5,\"partly_mapped\":2,\"pages_migrated\":0}");
	cr_assert(json_object_object_get_ex(o, "shatter", &s), "stock counts its splits too");
	cr_assert_eq(json_object_get_int64(json_object_object_get(s, "split")), 5);
	json_object_put(o);
}
