// SPDX-License-Identifier: GPL-2.0
#include <criterion/criterion.h>
#include <errno.h>

#include "account/cgroup_state.h"

static struct taod_cg_counters counts(uint64_t allocs, uint64_t splits)
{
	struct taod_cg_counters c = {.thp_fault_alloc = allocs, .pmd_split = splits};

	return c;
}

static void tick(struct cgroup_table *t, uint64_t now, uint64_t id, const char *path,
		 uint64_t allocs, uint64_t splits, uint64_t anon, uint64_t thp)
{
	struct taod_cg_counters c = counts(allocs, splits);
	struct memstat m = {.anon_bytes = anon, .thp_bytes = thp, .has_anon = true};
	struct cgroup_entry *e;

	cgroup_table_begin_tick(t);
	cgroup_table_set_counters(t, id, &c, now);
	e = cgroup_table_touch(t, id, path, 0, now);
	cgroup_entry_set_memstat(e, &m, true);
	cgroup_table_sample(t, now, 10000);
}

Test(arith, rates_and_ratios)
{
	cr_assert_float_eq(rate_per_s(100, 160, 2000), 30.0, 1e-9);
	cr_assert_float_eq(rate_per_s(100, 160, 0), 0.0, 1e-9);
	cr_assert_float_eq(rate_per_s(160, 100, 1000), 0.0, 1e-9, "counter reset is no rate");
	cr_assert_float_eq(cg_split_ratio(3, 4), 0.75, 1e-9);
	cr_assert_float_eq(cg_split_ratio(3, 0), 0.0, 1e-9);
}

Test(cgroup_state, rate_over_window)
{
	struct cgroup_table t;
	struct cgroup_entry *e;

	cgroup_table_init(&t, 64);
	/* 10 allocations a second for 20 s, then silence for 5 s. */
	for (uint64_t s = 0; s <= 20; s++)
		tick(&t, s * 1000, 7, "/a", s * 10, s, 100, 50);
	e = cgroup_table_find(&t, 7);
	cr_assert_float_eq(e->alloc_rate, 10.0, 1e-9);
	cr_assert_float_eq(e->split_rate, 1.0, 1e-9);
	for (uint64_t s = 21; s <= 25; s++)
		tick(&t, s * 1000, 7, "/a", 200, 20, 100, 50);
	cr_assert_float_eq(e->alloc_rate, 5.0, 1e-9, "half the 10 s window was silent");
	cgroup_table_free(&t);
}

Test(cgroup_state, window_deltas_and_coverage)
{
	struct cgroup_table t;
	struct cg_window w;
	struct cgroup_entry *e;

	cgroup_table_init(&t, 8); /* ring smaller than the run: wraps */
	for (uint64_t s = 0; s < 12; s++)
		tick(&t, s * 1000, 1, "/a", s * 4, s * 2, 1000, s < 10 ? 500 : 1000);
	e = cgroup_table_find(&t, 1);
	cr_assert_eq(cgroup_entry_window(e, 3000, &w), 0);
	cr_assert_eq(w.span_ms, 3000);
	cr_assert_eq(w.thp_alloc, 12);
	cr_assert_eq(w.pmd_split, 6);
	cr_assert_eq(w.samples, 4);
	cr_assert_float_eq(w.coverage_min, 50.0, 1e-9);
	cr_assert_float_eq(w.coverage_max, 100.0, 1e-9);
	cr_assert_float_eq(w.coverage_mean, 75.0, 1e-9);
	/* A window longer than the ring holds covers what the ring has. */
	cr_assert_eq(cgroup_entry_window(e, 60000, &w), 0);
	cr_assert_eq(w.samples, 8);
	cr_assert_eq(w.span_ms, 7000);
	cgroup_table_free(&t);
}

static int gone_count;
static uint64_t gone_id;

static void on_gone(void *ctx, const struct cgroup_entry *e)
{
	(void)ctx;
	gone_count++;
	gone_id = e->id;
}

Test(cgroup_state, vanished_cgroups_are_swept_with_one_tick_grace)
{
	struct cgroup_table t;
	struct taod_cg_counters c = counts(1, 0);

	cgroup_table_init(&t, 4);
	cgroup_table_begin_tick(&t);
	cgroup_table_touch(&t, 5, "/kept", 0, 0);
	cgroup_table_touch(&t, 9, "/goes", 0, 0);
	cgroup_table_set_counters(&t, 77, &c, 0); /* BPF saw it, the walk not yet */
	cr_assert_eq(cgroup_table_sweep(&t, on_gone, NULL, NULL, 0), 0);
	cr_assert_eq(t.n, 3);
	cr_assert_null(cgroup_table_find(&t, 77)->path);

	gone_count = 0;
	cgroup_table_begin_tick(&t);
	cgroup_table_touch(&t, 5, "/kept", 0, 1000);
	cgroup_table_set_counters(&t, 77, &c, 1000);
	cr_assert_eq(cgroup_table_sweep(&t, on_gone, NULL, NULL, 0), 2);
	cr_assert_eq(gone_count, 2);
	cr_assert_eq(t.n, 1);
	cr_assert_not_null(cgroup_table_find(&t, 5));
	cr_assert_null(cgroup_table_find(&t, 9));
	cgroup_table_free(&t);
}

Test(cgroup_state, rename_and_sorted_lookup)
{
	struct cgroup_table t;

	cgroup_table_init(&t, 4);
	cgroup_table_begin_tick(&t);
	for (uint64_t id = 2; id <= 200; id += 3)
		cgroup_table_touch(&t, id, "/x", 0, 0);
	for (size_t i = 1; i < t.n; i++)
		cr_assert_lt(t.v[i - 1]->id, t.v[i]->id);
	cgroup_table_touch(&t, 200, "/renamed", 0, 0);
	cr_assert_str_eq(cgroup_table_find(&t, 200)->path, "/renamed");
	cr_assert_null(cgroup_table_find(&t, 201));
	cgroup_table_free(&t);
}

Test(cgroup_state, empty_window)
{
	struct cgroup_entry e = {0};
	struct cg_window w;

	cr_assert_eq(cgroup_entry_window(&e, 1000, &w), -ENODATA);
	cr_assert_lt(w.coverage_mean, 0);
}

Test(cgroup_state, ring_resize_keeps_newest_samples)
{
	struct cgroup_table t;
	struct cg_window w;
	struct cgroup_entry *e;

	cgroup_table_init(&t, 8);
	for (uint64_t s = 0; s < 20; s++)
		tick(&t, s * 1000, 7, "/a", s * 10, s, 100, 50);
	cr_assert_eq(cgroup_table_set_ring_cap(&t, 4), 0);
	e = cgroup_table_find(&t, 7);
	cr_assert_eq(e->ring_cap, 4);
	cr_assert_eq(e->ring_len, 4);
	cr_assert_eq(cgroup_entry_window(e, 60000, &w), 0);
	cr_assert_eq(w.span_ms, 3000, "samples 16..19 kept");
	cr_assert_eq(w.thp_alloc, 30);
	/* Growing keeps them too, and new samples land after them. */
	cr_assert_eq(cgroup_table_set_ring_cap(&t, 16), 0);
	tick(&t, 20000, 7, "/a", 200, 20, 100, 50);
	cr_assert_eq(cgroup_entry_window(e, 60000, &w), 0);
	cr_assert_eq(w.samples, 5);
	cr_assert_eq(w.span_ms, 4000);
	cr_assert_eq(w.thp_alloc, 40);
	cgroup_table_free(&t);
}

Test(cgroup_state, memstat_due_only_when_counters_move)
{
	struct cgroup_table t;
	struct taod_cg_counters c = counts(3, 1);
	struct cgroup_entry *e;

	cgroup_table_init(&t, 4);
	cgroup_table_set_counters(&t, 9, &c, 0);
	e = cgroup_table_find(&t, 9);
	cr_assert(e->memstat_due, "a new cgroup is read");
	cr_assert(t.unknown_ids, "an id the walk has not seen asks for a walk");
	e->memstat_due = false;
	cgroup_table_set_counters(&t, 9, &c, 1000);
	cr_assert_not(e->memstat_due, "unchanged counters: no memory.stat read");
	c.pmd_split++;
	cgroup_table_set_counters(&t, 9, &c, 2000);
	cr_assert(e->memstat_due);
	cr_assert_eq(e->counters.pmd_split, 2);
	cgroup_table_free(&t);
}

/* A cgroup made, abused and quiet again between two ticks: its events all
 * fall in the window that ends at its first sample. */
Test(cgroup_state, a_cgroup_born_between_ticks_is_counted_from_zero)
{
	struct cgroup_table t;
	struct cg_window w;

	cgroup_table_init(&t, 64);
	tick(&t, 1000, 7, "/old", 50, 0, 100, 50);
	tick(&t, 2000, 7, "/old", 50, 0, 100, 50);
	/* /new turns up at 3000 with 289 allocations and 289 splits behind it. */
	cgroup_table_begin_tick(&t);
	cgroup_table_set_counters(&t, 7, &(struct taod_cg_counters){.thp_fault_alloc = 50}, 3000);
	cgroup_table_touch(&t, 7, "/old", 0, 3000);
	cgroup_table_set_counters(
	    &t, 9, &(struct taod_cg_counters){.thp_fault_alloc = 289, .pmd_split = 289}, 3000);
	cgroup_table_touch(&t, 9, "/new", 0, 3000);
	cgroup_table_sample(&t, 3000, 10000);
	cr_assert_eq(cgroup_entry_window(cgroup_table_find(&t, 9), 2000, &w), 0);
	cr_assert_eq(w.thp_alloc, 289);
	cr_assert_eq(w.pmd_split, 289);
	cr_assert_eq(w.span_ms, 1000);
	cr_assert_eq(w.coverage_mean, -1, "the zero sample has no memory.stat");
	/* A cgroup there at the first tick starts from its first sample. */
	cr_assert_eq(cgroup_entry_window(cgroup_table_find(&t, 7), 2000, &w), 0);
	cr_assert_eq(w.thp_alloc, 0);
	cgroup_table_free(&t);
}

/* Windows that follow each other from the last one's end miss nothing when
 * a tick comes late; "the last 10 s" would drop the boundary tick's events. */
Test(cgroup_state, windows_from_the_last_end_tile_without_gaps)
{
	struct cgroup_table t;
	struct cg_window w;
	struct cgroup_entry *e;

	cgroup_table_init(&t, 64);
	for (uint64_t s = 0; s <= 10; s++) /* one allocation a second */
		tick(&t, s * 1000, 7, "/a", s, 0, 100, 50);
	e = cgroup_table_find(&t, 7);
	cr_assert_eq(cgroup_entry_window_from(e, 0, &w), 0);
	cr_assert_eq(w.thp_alloc, 10);
	cr_assert_eq(w.end_ms, 10000);
	for (uint64_t s = 11; s <= 20; s++)
		tick(&t, s * 1000 + 3, 7, "/a", s, 0, 100, 50); /* 3 ms late */
	cr_assert_eq(cgroup_entry_window_from(e, w.end_ms, &w), 0);
	cr_assert_eq(w.thp_alloc, 10, "all ten of the second window");
	cr_assert_eq(w.span_ms, 10003);
	cr_assert_eq(cgroup_entry_window(e, 10000, &w), 0);
	cr_assert_eq(w.thp_alloc, 9, "the last 10 s lose the boundary tick");
	cr_assert_eq(cgroup_entry_oldest_ms(e), 0);
	cgroup_table_free(&t);
}

/* Counts drained from cg_overflow (a full cg_counters) add to the row's;
 * once the cgroup is removed, its late spilled counts fold into the parent
 * and its row's late events are not counted twice. */
Test(cgroup_state, spilled_counts_add_to_the_row_and_fold_once)
{
	struct cgroup_table t;
	struct taod_cg_counters row = counts(3, 1), spill = counts(10, 4);
	struct cgroup_entry *e, *parent;

	cgroup_table_init(&t, 4);
	cgroup_table_begin_tick(&t);
	cgroup_table_touch(&t, 1, "/", 0, 0);
	cgroup_table_touch(&t, 2, "/a", 1, 0);
	cgroup_table_set_counters(&t, 2, &row, 0);
	e = cgroup_table_add_spilled(&t, 2, &spill, 0);
	cr_assert_eq(e->counters.thp_fault_alloc, 13);
	cr_assert_eq(e->counters.pmd_split, 5);
	cgroup_table_add_spilled(&t, 2, &spill, 1000);
	cr_assert_eq(e->counters.pmd_split, 9, "drained counts accumulate");
	cgroup_table_set_counters(&t, 2, &row, 1000);
	cr_assert_eq(e->counters.pmd_split, 9, "an unchanged row adds nothing");

	cgroup_table_begin_tick(&t); /* /a removed */
	cgroup_table_touch(&t, 1, "/", 0, 2000);
	cgroup_table_sweep(&t, NULL, NULL, NULL, 2000);
	parent = cgroup_table_find(&t, 1);
	cr_assert_eq(parent->folded.pmd_split, 9);
	cr_assert_null(cgroup_table_set_counters(&t, 2, &row, 3000));
	cr_assert_eq(parent->folded.pmd_split, 9, "the row's events were folded already");
	cr_assert_null(cgroup_table_add_spilled(&t, 2, &spill, 3000));
	cr_assert_eq(parent->folded.pmd_split, 13, "late spilled counts fold");
	cgroup_table_free(&t);
}
