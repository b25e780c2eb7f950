// SPDX-License-Identifier: GPL-2.0
/*
 * Shatter through the split path on a boot-zone TAO kernel (no
 * memory.thp_shatter): the record carries the kernel's vmstat deltas, and
 * a split the kernel counted as nothing is no-gain, never done.
 */
#define _GNU_SOURCE
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "../act_fixture.h"
#include "observe/kernel_probe.h"

#define SPLIT "/sys/kernel/debug/split_huge_pages"

static struct kernel_info kernel;

static void boot_zone_kernel(void)
{
	fx_setup();
	/* The public TAO code: no memcg file (taod's own cgroup has none), so
	 * the features probed on the fixture's files send shatter down the
	 * split path. */
	kernel_probe_features(&fx.cfg, &fx.tree, &kernel);
	cr_assert(!kernel_has(&kernel, TAO_MEMCG_THP_SHATTER));
	fx_file("/proc/kpageflags", "");
	fx_file("/proc/4242/pagemap", "");
	fx_map_whole(0x7f0000000000, 0x3000 * 512);
	fx_map_whole(0x7f0000200000, 0x3001 * 512);
}

TestSuite(split_shatter, .init = boot_zone_kernel, .fini = fx_teardown);

static enum action_result shatter(struct action_record *rec)
{
	return fx_submit(ACTION_SHATTER, "/app/a", FIX_PID, 0, rec);
}

/* The kernel shattered 2 (one of them discarded) and split 1: done, with
 * those deltas in the record. */
Test(split_shatter, the_record_carries_the_kernels_counts)
{
	struct action_record rec;

	snprintf(fx.split_vmstat, sizeof(fx.split_vmstat),
		 "thp_split_page 1\nthp_shatter_page 9\nthp_shatter_page_failed 1\n"
		 "thp_shatter_page_discarded 1\n");
	fx_open(&backend_tao_ops);
	actor_set_kernel(fx.actor, &kernel);
	cr_assert_eq(shatter(&rec), RESULT_DONE, "%s", rec.detail);
	cr_assert(strstr(fx.writes, SPLIT "=4242,0x7f0000000000,0x7f0000400000\n"), "%s",
		  fx.writes);
	cr_assert(strstr(rec.detail, "shattered 2, failed 0, discarded 1 pages, split 1 (vmstat)"),
		  "%s", rec.detail);
}

/* The writes went out, the kernel counted nothing (the THPs were gone, or
 * the writes reached none): no-gain, which backs off, not "done, shattered
 * 0, failed 0, discarded 0, split 0". */
Test(split_shatter, a_shatter_the_kernel_did_not_count_is_never_done)
{
	struct action_record rec;

	fx_open(&backend_tao_ops);
	actor_set_kernel(fx.actor, &kernel);
	cr_assert_eq(shatter(&rec), RESULT_NO_GAIN, "%s", rec.detail);
	cr_assert(strstr(fx.writes, SPLIT "="), "%s", fx.writes);
	cr_assert(
	    strstr(rec.detail, "the kernel counted none shattered, failed, discarded or split"),
	    "%s", rec.detail);
	cr_assert_eq(shatter(&rec), RESULT_BACKING_OFF, "%s", rec.detail);
}
