// SPDX-License-Identifier: GPL-2.0
/*
 * The collapse reward over page tables: which 2 MiB chunks it advises (not
 * the PMD-mapped THPs, not the empty ones), what it records when the THP
 * bytes grew or did not, the back-off after a collapse that gained
 * nothing, and the gate that refuses a collapse with no free 2 MiB block
 * without spending the action budget. A hook plays the kernel's part of
 * process_madvise(MADV_COLLAPSE): it records the ranges and, when asked,
 * raises AnonHugePages in the fixture smaps as the kernel would.
 */
#define _GNU_SOURCE
#include <criterion/criterion.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/uio.h>
#include <unistd.h>

#include "../act_fixture.h"
#include "act/gate/free_blocks.h"
#include "act/stock/thp_collapse.h"

#define MAP	0x7f3000000000ULL /* a 16 MiB mapping: 8 chunks */
#define CHUNK	(2ULL << 20)
#define MAP_KIB (16 * 1024)
#define BUDDY_NO                                                                                   \
	"Node 0, zone      DMA      0 0 0 0 0 0 0 0 1 1 3\n"                                       \
	"Node 0, zone   Normal    493 1231 976 400 211 107 64 55 40 0 0\n"

static struct {
	char ranges[1024]; /* "start+len " per range advised */
	int calls;
	bool gain;	   /* collapse what is advised: AnonHugePages grows */
	int busy;	   /* calls answered EAGAIN before the kernel collapses */
	uint64_t rss_kib;  /* of the mapping */
	uint64_t huge_kib; /* AnonHugePages of the mapping */
} kern;

static void write_smaps(void)
{
	char text[512];

	snprintf(text, sizeof(text),
		 "7f3000000000-7f3001000000 rw-p 00000000 00:00 0 \n"
		 "Rss:            %8llu kB\nAnonymous:      %8llu kB\n"
		 "AnonHugePages:  %8llu kB\nTHPeligible:    0\n"
		 "VmFlags: rd wr mr mw me ac sd\n",
		 (unsigned long long)kern.rss_kib, (unsigned long long)kern.rss_kib,
		 (unsigned long long)kern.huge_kib);
	fx_file("/proc/4242/smaps", text);
}

static long play_madv_collapse(void *ctx, pid_t pid, const struct iovec *iov, int n)
{
	long bytes = 0;

	(void)ctx;
	cr_assert_eq(pid, FIX_PID);
	kern.calls++;
	if (kern.busy && kern.busy--)
		return -EAGAIN;
	for (int i = 0; i < n; i++) {
		size_t off = strlen(kern.ranges);

		snprintf(kern.ranges + off, sizeof(kern.ranges) - off, "%llx+%zx ",
			 (unsigned long long)(uintptr_t)iov[i].iov_base, iov[i].iov_len);
		bytes += (long)iov[i].iov_len;
	}
	if (kern.gain) {
		kern.huge_kib += (uint64_t)bytes >> 10;
		write_smaps();
	}
	return bytes;
}

/* 16 pages of base pages at the start of chunk @i. */
static void map_base(int i)
{
	for (uint64_t p = 0; p < 16; p++)
		fx_map_page(MAP + i * CHUNK + p * 4096, 0x9000 + i * 16 + p, false);
}

/*
 * A mapping that grew after its first collapse: chunks 0-2 are PMD-mapped
 * THPs, 3, 4, 6 and 7 hold base pages, 5 holds nothing.
 */
static void grown_mapping(void)
{
	fx_file("/proc/kpageflags", "");
	fx_file("/proc/4242/pagemap", "");
	for (int i = 0; i < 3; i++)
		fx_map_whole(MAP + i * CHUNK, (0x5000ULL + i) * 512);
	map_base(3);
	map_base(4);
	map_base(6);
	map_base(7);
	kern.huge_kib = 3 * 2048;
	kern.rss_kib = kern.huge_kib + 4 * 16 * 4;
	write_smaps();
}

static void setup(void)
{
	fx_setup();
	memset(&kern, 0, sizeof(kern));
	thp_collapse_set_hook(play_madv_collapse, NULL);
}

static void teardown(void)
{
	thp_collapse_set_hook(NULL, NULL);
	fx_teardown();
}

TestSuite(thp_collapse, .init = setup, .fini = teardown);

static enum action_result collapse(uint64_t bytes, struct action_record *rec)
{
	return fx_submit(ACTION_COLLAPSE, "/app/a", 0, bytes, rec);
}

static enum action_result shatter(struct action_record *rec)
{
	return fx_submit(ACTION_SHATTER, "/app/a", FIX_PID, 64 << 20, rec);
}

Test(thp_collapse, plans_the_chunks_not_yet_thp_only)
{
	struct action_record rec;

	grown_mapping();
	kern.gain = true;
	fx_open(&backend_stock_ops);
	cr_assert_eq(collapse(MAP_KIB << 10, &rec), RESULT_DONE, "%s", rec.detail);
	/* Chunks 3-4 and 6-7: neither the THPs at the start nor the empty chunk 5. */
	cr_assert_str_eq(kern.ranges, "7f3000600000+400000 7f3000c00000+400000 ");
	cr_assert(strstr(rec.detail, "collapsed 8388608 bytes (THP 6291456 -> 14680064)"), "%s",
		  rec.detail);
	cr_assert(strstr(rec.detail, "6291456 already THP skipped"), "%s", rec.detail);
}

Test(thp_collapse, plans_no_more_chunks_than_the_budget_pays_for)
{
	struct action_record rec;

	grown_mapping();
	kern.gain = true;
	fx_open(&backend_stock_ops);
	cr_assert_eq(collapse(3 * CHUNK, &rec), RESULT_DONE, "%s", rec.detail);
	cr_assert_str_eq(kern.ranges, "7f3000600000+400000 7f3000c00000+200000 ");
}

/* A clock 1.5 s further on at every reading: the collapse's time (10 s)
 * is up at its seventh look, after chunks 3 and 4 are planned. */
static uint64_t slow_now(void)
{
	return fx_now += 1500;
}

/* A collapse that plans past an action's time advises what it planned so
 * far and says it stopped. */
Test(thp_collapse, a_collapse_stops_when_its_time_is_up)
{
	struct action_record rec;

	grown_mapping();
	kern.gain = true;
	fx_open(&backend_stock_ops);
	actor_set_clock(fx.actor, slow_now);
	cr_assert_eq(collapse(MAP_KIB << 10, &rec), RESULT_DONE, "%s", rec.detail);
	/* Unlimited: "7f3000600000+400000 7f3000c00000+400000 ". */
	cr_assert_str_eq(kern.ranges, "7f3000600000+400000 ");
	cr_assert(strstr(rec.detail, ", stopped after 10 s (an action's time)"), "%s", rec.detail);
	cr_assert_geq(rec.took_ms, 10000);
}

/* The grown mapping, collapsed by a kernel that answers EAGAIN @busy times first. */
static enum action_result collapse_while_busy(int busy, struct action_record *rec)
{
	grown_mapping();
	kern.gain = true;
	kern.busy = busy;
	fx_open(&backend_stock_ops);
	return collapse(MAP_KIB << 10, rec);
}

/* EAGAIN is the kernel's "try again": a passing busy moment is no failure. */
Test(thp_collapse, collapse_with_retry_tries_again_after_eagain)
{
	struct action_record rec;

	cr_assert_eq(collapse_while_busy(2, &rec), RESULT_DONE, "%s", rec.detail);
	cr_assert_eq(kern.calls, 3);
	cr_assert(strstr(rec.detail, "collapsed 8388608 bytes"), "%s", rec.detail);
}

/* A kernel that stays busy: the tries are bounded and the action fails. */
Test(thp_collapse, collapse_with_retry_gives_up_after_its_tries)
{
	struct action_record rec;

	cr_assert_eq(collapse_while_busy(100, &rec), RESULT_FAILED, "%s", rec.detail);
	cr_assert_eq(kern.calls, 4);
	cr_assert(strstr(rec.detail, "Resource temporarily unavailable"), "%s", rec.detail);
}

Test(thp_collapse, a_collapse_that_gains_nothing_is_no_gain_and_backs_off)
{
	struct action_record rec;
	struct reward_state st;

	grown_mapping();
	fx_open(&backend_stock_ops);
	cr_assert_eq(collapse(MAP_KIB << 10, &rec), RESULT_NO_GAIN, "%s", rec.detail);
	cr_assert_eq(kern.calls, 1);
	cr_assert(strstr(rec.detail, "collapsed 0 bytes (THP 6291456 -> 6291456)"), "%s",
		  rec.detail);
	cr_assert(strstr(rec.detail, "retry in 10 s"), "%s", rec.detail);
	cr_assert_eq(actor_reward_state(fx.actor, "/app/a", &st), 0);
	cr_assert_eq(st.result, RESULT_NO_GAIN);
	cr_assert_eq(st.retry_in_ms, 10000);
	cr_assert_eq(st.gained_bytes, 0);

	/* Backing off: the kernel is not asked again; the state keeps why. */
	fx_now += 5000;
	cr_assert_eq(collapse(MAP_KIB << 10, &rec), RESULT_BACKING_OFF, "%s", rec.detail);
	cr_assert_eq(kern.calls, 1);
	cr_assert_eq(actor_reward_state(fx.actor, "/app/a", &st), 0);
	cr_assert_eq(st.result, RESULT_NO_GAIN);
	cr_assert_eq(st.ago_ms, 5000);
	cr_assert_eq(st.retry_in_ms, 5000);
	cr_assert(strstr(st.detail, "collapsed 0 bytes"), "%s", st.detail);

	/* Once it is over, a collapse that gains clears it. */
	fx_now += 6000;
	kern.gain = true;
	cr_assert_eq(collapse(MAP_KIB << 10, &rec), RESULT_DONE, "%s", rec.detail);
	cr_assert_eq(kern.calls, 2);
	cr_assert_eq(actor_reward_state(fx.actor, "/app/a", &st), 0);
	cr_assert_eq(st.gained_bytes, 8 << 20);
	cr_assert_eq(st.retry_in_ms, 0);
	cr_assert_eq(actor_reward_state(fx.actor, "/app/b", &st), -ENOENT);
}

Test(thp_collapse, nothing_to_collapse_is_no_gain_and_spends_no_budget)
{
	struct action_record rec;

	/* Its resident pages are all THPs already: nothing goes to the kernel. */
	fx_file("/proc/kpageflags", "");
	fx_file("/proc/4242/pagemap", "");
	for (int i = 0; i < 3; i++)
		fx_map_whole(MAP + i * CHUNK, (0x5000ULL + i) * 512);
	kern.huge_kib = kern.rss_kib = 3 * 2048;
	write_smaps();
	fx.cfg.enforce.actions_per_minute = 1;
	fx_open(&backend_stock_ops);
	cr_assert_eq(collapse(MAP_KIB << 10, &rec), RESULT_NO_GAIN, "%s", rec.detail);
	cr_assert_eq(kern.calls, 0);
	cr_assert(strstr(rec.detail, "nothing to collapse"), "%s", rec.detail);
	/* The one action a minute is still there for what goes to the kernel. */
	cr_assert_eq(shatter(&rec), RESULT_DONE, "%s", rec.detail);
	cr_assert_eq(shatter(&rec), RESULT_RATE_LIMITED, "%s", rec.detail);
}

/* Another user's task without CAP_SYS_PTRACE: its smaps cannot be read,
 * which is a failure, not "nothing to collapse". */
Test(thp_collapse, unreadable_smaps_of_a_live_task_fails)
{
	struct action_record rec;
	char path[PATH_MAX];

	grown_mapping();
	snprintf(path, sizeof(path), "%s/proc/4242/smaps", fx.root);
	cr_assert_eq(unlink(path), 0, "%s", path);
	fx_open(&backend_stock_ops);
	cr_assert_eq(collapse(MAP_KIB << 10, &rec), RESULT_FAILED, "%s", rec.detail);
	cr_assert_eq(rec.err, ENOENT, "%s", rec.detail);
	cr_assert(strstr(rec.detail, "cannot read the smaps of 1 of 1 task(s)"), "%s", rec.detail);
	cr_assert_eq(kern.calls, 0);
}

Test(thp_collapse, no_free_2mib_block_is_not_possible_and_spends_no_budget)
{
	struct action_record rec;
	struct reward_state st;

	grown_mapping();
	kern.gain = true;
	fx_file("/proc/buddyinfo", BUDDY_NO);
	fx.cfg.enforce.actions_per_minute = 1;
	fx_open(&backend_stock_ops);
	cr_assert_eq(collapse(MAP_KIB << 10, &rec), RESULT_NOT_POSSIBLE, "%s", rec.detail);
	cr_assert_eq(kern.calls, 0);
	cr_assert_str_eq(rec.detail, "no free 2 MiB blocks: the guarantee cannot be met now");
	cr_assert_eq(actor_reward_state(fx.actor, "/app/a", &st), 0);
	cr_assert_eq(st.result, RESULT_NOT_POSSIBLE);
	cr_assert_eq(st.retry_in_ms, 0, "no back-off: it is tried once blocks are free");

	/* One free order-10 block in Normal: two THPs' room; the collapse goes ahead. */
	fx_file("/proc/buddyinfo",
		"Node 0, zone   Normal    493 1231 976 400 211 107 64 55 40 0 1\n");
	cr_assert_eq(collapse(MAP_KIB << 10, &rec), RESULT_DONE, "%s", rec.detail);
	cr_assert_eq(kern.calls, 1);
	/* The refused collapse took no token: the one a minute paid for this one. */
	cr_assert_eq(shatter(&rec), RESULT_RATE_LIMITED, "%s", rec.detail);
}

Test(thp_collapse, free_thp_blocks_counts_2mib_blocks_outside_dma)
{
	uint64_t n = 7;

	cr_assert_eq(free_thp_blocks(&fx.cfg.k, &n), -ENOENT, "no buddyinfo: unknown");
	fx_file("/proc/buddyinfo", BUDDY_NO);
	cr_assert_eq(free_thp_blocks(&fx.cfg.k, &n), 0);
	cr_assert_eq(n, 0);
	fx_file("/proc/buddyinfo",
		"Node 0, zone    DMA32 0 4 2 2 1 2 0 3 3 1 753\n"
		"Node 0, zone   Normal 493 1231 976 400 211 107 64 55 40 32 186\n");
	cr_assert_eq(free_thp_blocks(&fx.cfg.k, &n), 0);
	cr_assert_eq(n, 1 + 2 * 753 + 32 + 2 * 186);
}

/* A tenant is its subtree: a collapse reaches its task in a child cgroup. */
Test(thp_collapse, reaches_the_tenants_child_cgroups)
{
	struct action_record rec;

	grown_mapping();
	kern.gain = true;
	fx_file("/sys/fs/cgroup/app/a/cgroup.procs", "");
	fx_file("/sys/fs/cgroup/app/a/child/cgroup.procs", "4242\n");
	fx_file("/proc/4242/cgroup", "0::/app/a/child\n");
	fx_open(&backend_stock_ops);
	cr_assert_eq(collapse(MAP_KIB << 10, &rec), RESULT_DONE, "%s", rec.detail);
	cr_assert_str_eq(kern.ranges, "7f3000600000+400000 7f3000c00000+400000 ");
}
