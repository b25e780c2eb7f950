// SPDX-License-Identifier: GPL-2.0
/*
 * The contiguity-pressure state machine over hand-made readings (enter at
 * once, leave only after the hold time with every input calm, rates from
 * counter deltas) and the readers' parsers over fixture text, odd files
 * included.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "account/contiguity_pressure.h"
#include "account/pressure_read.h"
#include "common/rootfs.h"

#include "../support/scratch.h"

static struct pressure_settings cfg;
static struct pressure_state st;
static uint64_t now;
static double fallbacks; /* cumulative thp_fault_fallback */

static void setup(void)
{
	pressure_settings_defaults(&cfg);
	cfg.hold_ms = 10000;
	pressure_state_init(&st);
	now = 1000000;
	fallbacks = 0;
}

TestSuite(pressure, .init = setup);

/* One reading 1 s after the last: @free PMD blocks, @rate fallbacks per second. */
static enum pressure_level step(double free, double rate)
{
	struct pressure_reading r = {.t_ms = now};

	fallbacks += rate;
	r.present = 1u << PIN_FREE_PMD_BLOCKS | 1u << PIN_THP_FAULT_FALLBACK;
	r.value[PIN_FREE_PMD_BLOCKS] = free;
	r.value[PIN_THP_FAULT_FALLBACK] = fallbacks;
	r.nplaces = 1;
	strcpy(r.places[0].name, "node0");
	r.places[0].free_pmd_blocks = (uint64_t)free;
	pressure_step(&st, &r, &cfg);
	now += 1000;
	return st.machine.state;
}

Test(pressure, plenty_of_free_blocks_is_none)
{
	for (int i = 0; i < 5; i++)
		cr_assert_eq(step(500, 0), PRESSURE_NONE);
	cr_assert_eq(st.why, 0);
	cr_assert_eq(st.places[0].h.state, PRESSURE_NONE);
}

Test(pressure, few_free_blocks_enter_at_once_and_say_why)
{
	char why[256];

	step(500, 0);
	cr_assert_eq(step(40, 0), PRESSURE_SOME); /* below 64 */
	cr_assert_eq(st.why, 1u << PIN_FREE_PMD_BLOCKS);
	pressure_why_text(&st, &cfg, why, sizeof(why));
	cr_assert_str_eq(why, "free_pmd_blocks=40.0 (< 64)");
	cr_assert_eq(step(5, 0), PRESSURE_FULL); /* below 8 */
	cr_assert_eq(st.places[0].h.state, PRESSURE_FULL);
}

/* short_ms: the last step with a fallback for want of blocks (below any
 * threshold: one is enough) or a level above none; plenty and no
 * fallback leaves it where it was. */
Test(pressure, the_last_step_short_of_blocks_is_kept)
{
	uint64_t at;

	step(500, 0);
	step(500, 0);
	cr_assert_eq(st.short_ms, 0, "no fallback, no pressure: never short");
	at = now;
	step(500, 1);
	cr_assert_eq(st.machine.state, PRESSURE_NONE);
	cr_assert_eq(st.short_ms, at, "one fallback for want of a block");
	/* The rate spans a few seconds: it shows the fallback until they pass. */
	for (int i = 0; i < PRESSURE_RATE_MS / 1000 + 2; i++)
		step(500, 0);
	at = st.short_ms;
	step(500, 0);
	cr_assert_eq(st.short_ms, at, "calm again: no longer short");
	at = now;
	step(40, 0);
	cr_assert_eq(st.short_ms, at, "pressure is a lack too");
}

/* Leaving needs every input past the leave threshold (free blocks: twice
 * the entering one) for the whole hold time. */
Test(pressure, leaving_needs_calm_for_the_hold_time)
{
	step(40, 0);
	cr_assert_eq(st.machine.state, PRESSURE_SOME);
	for (int i = 0; i < 20; i++) /* above 64 but below 128: still held */
		cr_assert_eq(step(100, 0), PRESSURE_SOME);
	for (int i = 0; i < 10; i++) /* calm, but not for 10 s yet */
		cr_assert_eq(step(300, 0), PRESSURE_SOME);
	cr_assert_eq(step(300, 0), PRESSURE_NONE);
	cr_assert_eq(st.why, 0);
}

/* A calm spell broken by a value past the leave threshold starts over. */
Test(pressure, a_relapse_restarts_the_hold)
{
	step(40, 0);
	for (int i = 0; i < 8; i++)
		step(300, 0);
	step(100, 0); /* held again */
	for (int i = 0; i < 10; i++)
		cr_assert_eq(step(300, 0), PRESSURE_SOME);
	cr_assert_eq(step(300, 0), PRESSURE_NONE);
}

/* full falls to some (not none) while an input still holds some. */
Test(pressure, full_falls_to_what_is_still_held)
{
	step(5, 0);
	cr_assert_eq(st.machine.state, PRESSURE_FULL);
	for (int i = 0; i < 11; i++)
		step(40, 0);
	cr_assert_eq(st.machine.state, PRESSURE_SOME);
}

/* Rates come from counter deltas: the first reading gives none, a counter
 * that goes back gives none. */
Test(pressure, fault_fallback_rate_enters_some)
{
	cr_assert_eq(step(500, 1000), PRESSURE_NONE); /* first reading: no rate yet */
	cr_assert_eq(step(500, 30), PRESSURE_SOME);   /* 30/s >= 20 */
	cr_assert_eq(st.why, 1u << PIN_THP_FAULT_FALLBACK);
	cr_assert_float_eq(st.value[PIN_THP_FAULT_FALLBACK], 30.0, 0.01);
	fallbacks = 0; /* a counter that went back (never on a live kernel) */
	step(500, 0);
	cr_assert_float_eq(st.value[PIN_THP_FAULT_FALLBACK], 0.0, 0.01);
}

/* An input the source did not give never enters anything. */
Test(pressure, absent_inputs_count_nothing)
{
	struct pressure_reading r = {.t_ms = now};

	pressure_step(&st, &r, &cfg);
	cr_assert_eq(st.machine.state, PRESSURE_NONE);
	cr_assert_eq(st.present, 0);
}

/* A threshold of 0 turns the input's level off. */
Test(pressure, zero_threshold_is_off)
{
	cfg.some[PIN_FREE_PMD_BLOCKS] = cfg.full[PIN_FREE_PMD_BLOCKS] = 0;
	cr_assert_eq(step(0, 0), PRESSURE_NONE);
}

/* Issue 37 item 2: a fallback at a cgroup's own limit (a charge) is no
 * lack of contiguity: a tenant whose child has a 1 MiB limit made 3,119 in
 * 6 s, all charges, and pressure went full. */
Test(pressure_read, charge_fallbacks_are_no_lack_of_contiguity)
{
	struct pressure_reading r = {0};
	char err[160] = "";

	cr_assert_eq(pressure_parse_vmstat("thp_fault_fallback 3126\n"
					   "thp_fault_fallback_charge 3119\n",
					   &r, err, sizeof(err)),
		     0, "%s", err);
	cr_assert_float_eq(r.value[PIN_THP_FAULT_FALLBACK], 7, 0.1);
}

Test(pressure_read, vmstat_counters_sum_into_their_inputs)
{
	struct pressure_reading r = {0};
	char err[160] = "";

	cr_assert_eq(pressure_parse_vmstat("nr_free_pages 100\n"
					   "thp_fault_fallback 7\n"
					   "allocstall_dma32 1\n"
					   "allocstall_normal 2\n"
					   "allocstall_nosplit 5\n"
					   "pgskip_nomerge 9\n"
					   "compact_stall 3\n",
					   &r, err, sizeof(err)),
		     0, "%s", err);
	cr_assert_float_eq(r.value[PIN_THP_FAULT_FALLBACK], 7, 0.1);
	cr_assert_float_eq(r.value[PIN_ALLOCSTALL], 3, 0.1); /* TAO's own apart */
	cr_assert_float_eq(r.value[PIN_TAO_ALLOCSTALL], 5, 0.1);
	cr_assert_float_eq(r.value[PIN_TAO_PGSKIP], 9, 0.1);
	cr_assert(r.present & (1u << PIN_COMPACT_STALL));
	cr_assert_not(r.present & (1u << PIN_COMPACT_FAIL));
}

Test(pressure_read, a_vmstat_value_that_is_no_count_is_named)
{
	struct pressure_reading r = {0};
	char err[160] = "";

	cr_assert_eq(pressure_parse_vmstat("thp_fault_fallback -3\ncompact_fail 2\n"
					   "compact_stall 99999999999999999999999\n",
					   &r, err, sizeof(err)),
		     -EINVAL);
	cr_assert_str_eq(err, "vmstat line 1: thp_fault_fallback = \"-3\" is not a count");
	cr_assert_not(r.present & (1u << PIN_THP_FAULT_FALLBACK));
	cr_assert_not(r.present & (1u << PIN_COMPACT_STALL));
	cr_assert(r.present & (1u << PIN_COMPACT_FAIL)); /* the rest is still read */
}

Test(pressure_read, psi_avg10_in_range)
{
	struct pressure_reading r = {0};
	char err[160] = "";

	cr_assert_eq(pressure_parse_psi("some avg10=12.50 avg60=1.00 avg300=0.00 total=5\n"
					"full avg10=3.25 avg60=0.00 avg300=0.00 total=1\n",
					&r, err, sizeof(err)),
		     0, "%s", err);
	cr_assert_float_eq(r.value[PIN_PSI_SOME], 12.5, 0.01);
	cr_assert_float_eq(r.value[PIN_PSI_FULL], 3.25, 0.01);
}

Test(pressure_read, odd_psi_is_an_error_not_a_crash)
{
	struct pressure_reading r = {0};
	char err[160] = "";

	cr_assert_eq(pressure_parse_psi("some avg10=250.00 avg60=0\n", &r, err, sizeof(err)),
		     -ERANGE);
	cr_assert_str_eq(err, "memory PSI: some avg10=250 is outside 0..100");
	cr_assert_eq(pressure_parse_psi("bogus\nfull avg10=nan\n", &r, err, sizeof(err)), -EINVAL);
	cr_assert(strstr(err, "\"bogus\" is not"), "%s", err);
	cr_assert_eq(r.present, 0);
	cr_assert_eq(pressure_parse_psi("", &r, err, sizeof(err)), 0);
}

/* Free blocks at the PMD order and up (order 10 counts twice), DMA left
 * out, per node and per TAO zone; the smallest mTHP order's too. */
Test(pressure_read, free_blocks_per_node_and_zone)
{
	struct machine_stats *m = calloc(1, sizeof(*m));
	struct pressure_reading r = {0};

	machine_parse_buddyinfo(
	    "Node 0, zone      DMA      0      0      0      0      0      0      0      0      0 "
	    "     1      3\n"
	    "Node 0, zone   Normal      8      4      0      0      0      0      0      0      0 "
	    "     5      2\n"
	    "Node 1, zone  NoSplit      0      0      0      0      0      0      0      0      0 "
	    "     3\n"
	    "garbage\n",
	    m);
	cr_assert_eq(pressure_free_blocks(m, 9, 4, "NoSplit", "NoMerge", &r), 0);
	cr_assert_float_eq(r.value[PIN_FREE_PMD_BLOCKS], 5 + 2 * 2 + 3, 0.1);
	/* order 4 and up, in order-4 units: (5 << 5) + (2 << 6) + (3 << 5) */
	cr_assert_float_eq(r.value[PIN_FREE_MTHP_BLOCKS], 160 + 128 + 96, 0.1);
	cr_assert_eq(r.nplaces, 3);
	cr_assert_str_eq(r.places[0].name, "node0");
	cr_assert_eq(r.places[0].free_pmd_blocks, 9);
	cr_assert_str_eq(r.places[2].name, "node1/NoSplit");
	cr_assert_eq(r.places[2].free_pmd_blocks, 3);
	free(m);
}

Test(pressure_read, buddyinfo_without_zones_is_an_error)
{
	struct machine_stats *m = calloc(1, sizeof(*m));
	struct pressure_reading r = {0};

	machine_parse_buddyinfo("nothing here\nNode x, zone\n", m);
	cr_assert_eq(pressure_free_blocks(m, 9, 0, "NoSplit", "NoMerge", &r), -ENODATA);
	cr_assert_eq(r.present, 0);
	free(m);
}

/* The whole reader over a fixture root: every source, the smallest enabled
 * mTHP order (inherit follows the top-level setting), an empty stats file
 * and a PSI file with garbage, which is named while the rest is read. */
Test(pressure_read, a_fixture_root_with_every_source)
{
	char dir[SCRATCH_DIR_MAX], err[256];
	struct taod_config *c = calloc(1, sizeof(*c));
	struct pressure_reading r;

	config_defaults(c);
	scratch_make(dir, "pressure");
	scratch_write(
	    dir, "proc/buddyinfo",
	    "Node 0, zone   Normal      0      0      0      0      0      0      0      0"
	    "      0      3      1\n");
	scratch_write(dir, "proc/vmstat", "thp_fault_fallback 12\ncompact_stall 4\n");
	scratch_write(dir, "proc/pressure/memory",
		      "some avg10=1.50 avg60=0 avg300=0 total=1\n"
		      "full avg10=oops\n");
	scratch_write(dir, "sys/kernel/mm/transparent_hugepage/enabled",
		      "always [madvise] never\n");
	scratch_write(dir, "sys/kernel/mm/transparent_hugepage/hugepages-64kB/enabled",
		      "always [inherit] madvise never\n");
	scratch_write(dir,
		      "sys/kernel/mm/transparent_hugepage/hugepages-64kB/stats/"
		      "anon_fault_fallback",
		      "5\n");
	scratch_write(dir, "sys/kernel/mm/transparent_hugepage/hugepages-16kB/enabled",
		      "always inherit madvise [never]\n");
	scratch_write(dir,
		      "sys/kernel/mm/transparent_hugepage/hugepages-16kB/stats/"
		      "anon_fault_fallback",
		      "\n");
	rootfs_set(dir);
	cr_assert_eq(pressure_read(&c->k, 5000, &r, err, sizeof(err)), -EINVAL);
	cr_assert(strstr(err, "memory PSI: \"full avg10=oops\""), "%s", err);
	cr_assert_float_eq(r.value[PIN_FREE_PMD_BLOCKS], 5, 0.1); /* 3 + 1 << 1 */
	/* 64 KiB (order 4) is the smallest enabled size: 16 KiB is never. */
	cr_assert_float_eq(r.value[PIN_FREE_MTHP_BLOCKS], (3 << 5) + (1 << 6), 0.1);
	cr_assert_float_eq(r.value[PIN_MTHP_FAULT_FALLBACK], 5, 0.1);
	cr_assert_float_eq(r.value[PIN_THP_FAULT_FALLBACK], 12, 0.1);
	cr_assert_float_eq(r.value[PIN_PSI_SOME], 1.5, 0.01);
	cr_assert_not(r.present & (1u << PIN_PSI_FULL));
	cr_assert_eq(r.t_ms, 5000);
	rootfs_set("/");
	scratch_remove(dir);
	free(c);
}
