// SPDX-License-Identifier: GPL-2.0
/* Zone sizing on a fixture TAO kernel: the exact hotplug writes taod makes. */
#include <criterion/criterion.h>
#include <errno.h>
#include <string.h>

#include "act/gate/rate_limit.h"
#include "act/tao/zone_sizing.h"
#include "../act_fixture.h"
#include "act/gate/audit.h"

#define MEM "/sys/devices/system/memory/"

TestSuite(zone_sizing, .init = fx_setup, .fini = fx_teardown);

static enum action_result resize(uint64_t demand, struct action_record *rec)
{
	return fx_submit(ACTION_RESIZE_ZONES, "", 0, demand, rec);
}

static uint64_t nosplit_blocks(void)
{
	struct act_ctx c = {.k = &fx.cfg.k, .s = &fx.cfg.enforce};
	uint64_t b = 0;

	cr_assert_eq(zone_online_bytes(&c, "NoSplit", &b, NULL), 0);
	return b / FIX_BLOCK;
}

Test(zone_sizing, grows_nosplit_offline_block_first_then_movable)
{
	struct action_record rec;

	fx_open(&backend_tao_ops);
	cr_assert_eq(nosplit_blocks(), 2);
	cr_assert_eq(resize(4 * FIX_BLOCK, &rec), RESULT_DONE, "%s", rec.detail);
	cr_assert_str_eq(fx.writes,
			 MEM "memory8/state=online_nosplit\n" MEM "memory5/state=offline\n" MEM
			     "memory5/state=online_nosplit\n");
	cr_assert_eq(nosplit_blocks(), 4);
	cr_assert(strstr(rec.detail, "NoSplit 2 -> 4 blocks"), "%s", rec.detail);
}

Test(zone_sizing, headroom_and_bounds)
{
	struct zone_targets t;

	fx.cfg.enforce.zone_headroom = 100;
	fx.cfg.enforce.zone_min = 1000;
	fx.cfg.enforce.zone_max = 5000;
	zone_plan(&fx.cfg.enforce, 10, &t);
	cr_assert_eq(t.nosplit, 1000);
	zone_plan(&fx.cfg.enforce, 2000, &t);
	cr_assert_eq(t.nosplit, 2100);
	zone_plan(&fx.cfg.enforce, 9000, &t);
	cr_assert_eq(t.nosplit, 5000);
	cr_assert_eq(t.nomerge, ZONE_KEEP);
}

Test(zone_sizing, busy_block_is_skipped_and_rests)
{
	struct action_record rec;

	fx_open(&backend_tao_ops);
	fx_fail("/sys/devices/system/memory/memory5/state", EBUSY);
	cr_assert_eq(resize(4 * FIX_BLOCK, &rec), RESULT_DONE, "%s", rec.detail);
	cr_assert_str_eq(fx.writes,
			 MEM "memory8/state=online_nosplit\n" MEM "memory5/state=offline\n" MEM
			     "memory4/state=offline\n" MEM "memory4/state=online_nosplit\n");
	/* memory5 backs off: the next block is taken instead. */
	fx.writes[0] = '\0';
	fx.fail_path[0] = '\0';
	cr_assert_eq(resize(5 * FIX_BLOCK, &rec), RESULT_DONE, "%s", rec.detail);
	cr_assert_str_eq(fx.writes,
			 MEM "memory3/state=offline\n" MEM "memory3/state=online_nosplit\n");
	/* After its back-off memory5 is tried again. */
	fx_now += 11000;
	fx.writes[0] = '\0';
	cr_assert_eq(resize(6 * FIX_BLOCK, &rec), RESULT_DONE, "%s", rec.detail);
	cr_assert_str_eq(fx.writes,
			 MEM "memory5/state=offline\n" MEM "memory5/state=online_nosplit\n");
}

Test(zone_sizing, all_busy_fails_with_ebusy_and_backs_off)
{
	struct action_record rec;

	fx.cfg.enforce.free_floor = 1ULL << 40; /* no Movable block may go */
	fx_open(&backend_tao_ops);
	fx_fail("/sys/devices/system/memory/memory8/state", EBUSY);
	cr_assert_eq(resize(3 * FIX_BLOCK, &rec), RESULT_FAILED);
	cr_assert_eq(rec.err, EBUSY);
	cr_assert_str_eq(fx.writes, MEM "memory8/state=online_nosplit\n");
	fx.writes[0] = '\0';
	cr_assert_eq(resize(3 * FIX_BLOCK, &rec), RESULT_BACKING_OFF);
	cr_assert_str_eq(fx.writes, "");
	fx_now += 11000;
	fx.fail_path[0] = '\0';
	cr_assert_eq(resize(3 * FIX_BLOCK, &rec), RESULT_DONE, "%s", rec.detail);
	cr_assert_str_eq(fx.writes, MEM "memory8/state=online_nosplit\n");
}

Test(zone_sizing, shrinks_back_into_movable)
{
	struct action_record rec;

	fx_open(&backend_tao_ops);
	cr_assert_eq(resize(0, &rec), RESULT_DONE, "%s", rec.detail);
	cr_assert_str_eq(fx.writes,
			 MEM "memory7/state=offline\n" MEM "memory7/state=online_movable\n" MEM
			     "memory6/state=offline\n" MEM "memory6/state=online_movable\n");
	cr_assert_eq(nosplit_blocks(), 0);
}

Test(zone_sizing, never_touches_normal_or_dma_blocks)
{
	struct action_record rec;

	fx_open(&backend_tao_ops);
	cr_assert_eq(resize(100ULL << 30, &rec), RESULT_FAILED);
	cr_assert_eq(rec.err, ENOSPC, "%s", rec.detail);
	cr_assert_eq(nosplit_blocks(), 7); /* 2 + memory8 + 4 Movable */
	cr_assert_null(strstr(fx.writes, "memory0/"));
	cr_assert_null(strstr(fx.writes, "memory1/"));
	cr_assert_null(strstr(fx.writes, "memory10/"));
	cr_assert_null(strstr(fx.writes, "memory9/"));
}

Test(zone_sizing, stops_at_the_free_floor)
{
	struct action_record rec;
	/* General free in the fixture: DMA + DMA32 + Normal + Movable pages. */
	uint64_t general = (3840ULL + 200000 + 2000000 + 100000) * 4096;

	fx.cfg.enforce.free_floor = general - (200ULL << 20); /* room for one block */
	fx_open(&backend_tao_ops);
	cr_assert_eq(resize(10 * FIX_BLOCK, &rec), RESULT_FAILED);
	cr_assert_eq(rec.err, ENOMEM, "%s", rec.detail);
	cr_assert_str_eq(fx.writes,
			 MEM "memory8/state=online_nosplit\n" MEM "memory5/state=offline\n" MEM
			     "memory5/state=online_nosplit\n");
}

Test(zone_sizing, stock_backend_does_not_size)
{
	struct action_record rec;

	fx_open(&backend_stock_ops);
	cr_assert_eq(resize(4 * FIX_BLOCK, &rec), RESULT_UNSUPPORTED);
	cr_assert_str_eq(fx.writes, "");
}

/* Extreme figures from config or kernel files: no wrap, no UB (run under UBSan). */
Test(zone_sizing, extreme_settings_saturate)
{
	struct zone_targets t;

	fx.cfg.enforce.zone_headroom = UINT64_MAX;
	fx.cfg.enforce.zone_max = 0;
	zone_plan(&fx.cfg.enforce, UINT64_MAX - 5, &t);
	cr_assert_eq(t.nosplit, ZONE_KEEP - 1); /* grow as far as possible, not "keep" */
}

Test(zone_sizing, huge_free_counts_and_targets_do_not_overflow)
{
	struct action_record rec;

	fx_file("/proc/zoneinfo", "Node 0, zone   Normal\n  pages free 9223372036854775807\n"
				  "Node 0, zone  Movable\n  pages free 9223372036854775807\n"
				  "  pages free -9223372036854775807\n");
	fx.cfg.enforce.zone_headroom = UINT64_MAX;
	fx_open(&backend_tao_ops);
	/* Every movable block goes; the unreachable rest is a failure, not a wrap. */
	resize(UINT64_MAX, &rec);
	cr_assert(strstr(rec.detail, "NoSplit 2 -> 7 blocks"), "%s", rec.detail);
}

Test(zone_sizing, absurd_block_size_is_refused)
{
	const char *bad[] = {"ffffffffffffffff\n", "0\n", "8000001\n", "zz\n"};
	struct act_ctx c = {.k = &fx.cfg.k, .s = &fx.cfg.enforce};
	uint64_t b;

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		fx_file("/sys/devices/system/memory/block_size_bytes", bad[i]);
		cr_assert_eq(zone_online_bytes(&c, "NoSplit", &b, NULL), -EINVAL, "%s", bad[i]);
	}
}

Test(zone_sizing, byte_budget_of_any_size_is_read_without_ub)
{
	struct rate_limit rl = {0};

	fx.cfg.enforce.shatter_bytes_per_minute = UINT64_MAX;
	rate_limit_refill(&rl, &fx.cfg.enforce, 1);
	cr_assert_eq(rate_limit_bytes_left(&rl), UINT64_MAX);
	rate_limit_take(&rl, UINT64_MAX);
	cr_assert_eq(rate_limit_bytes_left(&rl), 0);
}
