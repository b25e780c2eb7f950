// SPDX-License-Identifier: GPL-2.0
/* Removed cgroups fold their evidence, and their late events, into a live ancestor. */
#include <criterion/criterion.h>
#include <string.h>

#include "account/cgroup_fold.h"
#include "account/size_held.h"

static struct cgroup_table t;
static uint64_t forgotten[8];
static unsigned nforgotten;

static void setup(void)
{
	cgroup_table_init(&t, 4);
	nforgotten = 0;
}

static void teardown(void)
{
	cgroup_table_free(&t);
}

TestSuite(cgroup_fold, .init = setup, .fini = teardown);

static void on_forget(void *ctx, uint64_t id)
{
	(void)ctx;
	if (nforgotten < 8)
		forgotten[nforgotten] = id;
	nforgotten++;
}

static struct taod_cg_counters counts(uint64_t allocs, uint64_t splits)
{
	return (struct taod_cg_counters){
	    .thp_fault_alloc = allocs, .pmd_split = splits, .pmd_split_pages = splits * 512};
}

/* The walk of this tick finds @n cgroups (id, path, parent), the rest go. */
static void walk_now(const uint64_t (*cg)[2], const char *const *paths, size_t n, uint64_t now)
{
	for (size_t i = 0; i < n; i++)
		cgroup_table_touch(&t, cg[i][0], paths[i], cg[i][1], now);
	cgroup_table_sweep(&t, NULL, on_forget, NULL, now);
}

/* One tick with nothing from BPF. */
static void walk(const uint64_t (*cg)[2], const char *const *paths, size_t n, uint64_t now)
{
	cgroup_table_begin_tick(&t);
	walk_now(cg, paths, n, now);
}

static struct cg_evidence evidence(uint64_t id)
{
	struct cg_evidence ev = {0};

	cgroup_entry_evidence(cgroup_table_find(&t, id), &ev);
	return ev;
}

Test(cgroup_fold, a_removed_child_folds_into_its_parent)
{
	const uint64_t all[][2] = {{1, 0}, {10, 1}, {11, 10}};
	const char *const paths[] = {"/", "/p", "/p/hop1"};
	struct taod_cg_counters c = counts(8, 6);

	walk(all, paths, 3, 1000);
	cgroup_table_set_counters(&t, 11, &c, 1000);
	walk(all, paths, 2, 2000); /* hop1 removed */
	cr_assert_null(cgroup_table_find(&t, 11));
	cr_assert_eq(evidence(10).thp_alloc, 8);
	cr_assert_eq(evidence(10).pmd_split, 6);
	cr_assert_eq(evidence(10).split_pages, 6 * 512);
	cr_assert_eq(cgroup_fold_tombstones(&t), 1);
}

Test(cgroup_fold, late_events_of_a_removed_cgroup_still_fold)
{
	const uint64_t all[][2] = {{1, 0}, {10, 1}, {11, 10}};
	const char *const paths[] = {"/", "/p", "/p/hop1"};
	struct taod_cg_counters c = counts(8, 0);

	walk(all, paths, 3, 1000);
	cgroup_table_set_counters(&t, 11, &c, 1000);
	walk(all, paths, 2, 2000);
	/* Its THPs stay charged to the dying memcg: splits come later. */
	c = counts(8, 8);
	cgroup_table_set_counters(&t, 11, &c, 3000);
	cr_assert_null(cgroup_table_find(&t, 11), "a removed id is not made anew");
	cr_assert_not(t.unknown_ids);
	cr_assert_eq(evidence(10).thp_alloc, 8);
	cr_assert_eq(evidence(10).pmd_split, 8);
	cgroup_table_set_counters(&t, 11, &c, 4000); /* the same reading adds nothing */
	cr_assert_eq(evidence(10).pmd_split, 8);
}

Test(cgroup_fold, a_child_and_its_parent_removed_together_reach_the_grandparent)
{
	const uint64_t all[][2] = {{1, 0}, {10, 1}, {11, 10}, {12, 11}};
	const char *const paths[] = {"/", "/g", "/g/p", "/g/p/c"};
	struct taod_cg_counters cp = counts(4, 1), cc = counts(16, 16);

	walk(all, paths, 4, 1000);
	cgroup_table_set_counters(&t, 11, &cp, 1000);
	cgroup_table_set_counters(&t, 12, &cc, 1000);
	walk(all, paths, 2, 2000);
	cr_assert_eq(evidence(10).thp_alloc, 20);
	cr_assert_eq(evidence(10).pmd_split, 17);
	cc = counts(16, 20); /* the grandchild's late splits follow the chain */
	cgroup_table_set_counters(&t, 12, &cc, 3000);
	cr_assert_eq(evidence(10).pmd_split, 21);
}

static void count_gone(void *ctx, const struct cgroup_entry *e)
{
	(void)e;
	++*(unsigned *)ctx;
}

/* Issue 29 part 10: 10,000 cgroups removed at once cost one tick 60-95 ms;
 * a sweep drops a bounded number, lowest ids first, and the rest wait
 * marked. A parent dropped a sweep before its child still leads the
 * child's evidence to the grandparent. */
Test(cgroup_fold, a_sweep_of_removed_cgroups_drops_at_most_its_budget)
{
	const uint64_t all[][2] = {{1, 0}, {10, 1}, {11, 10}, {12, 11}, {13, 10}};
	const char *const paths[] = {"/", "/g", "/g/p", "/g/p/c", "/g/q"};
	struct taod_cg_counters cp = counts(4, 1), cc = counts(16, 16);
	unsigned gone = 0;
	size_t left = 99;

	walk(all, paths, 5, 1000);
	cgroup_table_set_counters(&t, 11, &cp, 1000);
	cgroup_table_set_counters(&t, 12, &cc, 1000);
	for (uint64_t id = 11; id <= 13; id++)
		cgroup_table_find(&t, id)->removed = true;
	cr_assert_eq(cgroup_table_sweep_removed(&t, count_gone, NULL, &gone, 2000, 1, &left), 1);
	cr_assert_eq(left, 2);
	cr_assert_eq(gone, 1);
	cr_assert_null(cgroup_table_find(&t, 11), "the lowest id first");
	cr_assert_not_null(cgroup_table_find(&t, 12), "marked, for the next sweep");
	cr_assert_eq(cgroup_table_sweep_removed(&t, count_gone, NULL, &gone, 3000, 5, &left), 2);
	cr_assert_eq(left, 0);
	cr_assert_eq(gone, 3);
	cr_assert_eq(t.n, 2, "the root and /g");
	cr_assert_eq(evidence(10).thp_alloc, 20, "the child through its parent's tombstone");
	cr_assert_eq(evidence(10).pmd_split, 17);
}

Test(cgroup_fold, quiet_tombstones_are_forgotten_and_bpf_told)
{
	const uint64_t all[][2] = {{1, 0}, {10, 1}, {11, 10}};
	const char *const paths[] = {"/", "/p", "/p/hop1"};

	walk(all, paths, 3, 1000);
	walk(all, paths, 2, 2000);
	cr_assert_eq(cgroup_fold_tombstones(&t), 1);
	walk(all, paths, 2, 2000 + FOLD_TOMB_IDLE_MS);
	cr_assert_eq(cgroup_fold_tombstones(&t), 1, "quiet exactly the idle time: kept");
	cr_assert_eq(nforgotten, 0);
	walk(all, paths, 2, 2001 + FOLD_TOMB_IDLE_MS);
	cr_assert_eq(cgroup_fold_tombstones(&t), 0);
	cr_assert_eq(nforgotten, 1);
	cr_assert_eq(forgotten[0], 11);
}

Test(cgroup_fold, at_most_fold_tomb_max_tombstones_the_quietest_go)
{
	uint64_t(*all)[2] = calloc(FOLD_TOMB_MAX + 3, sizeof(*all));
	const char **paths = calloc(FOLD_TOMB_MAX + 3, sizeof(*paths));

	all[0][0] = 1;
	paths[0] = "/";
	for (size_t i = 1; i < FOLD_TOMB_MAX + 3; i++) {
		all[i][0] = 100 + i;
		all[i][1] = 1;
		paths[i] = "/x";
	}
	walk((const uint64_t(*)[2])all, paths, FOLD_TOMB_MAX + 3, 1000);
	walk((const uint64_t(*)[2])all, paths, 1, 2000);
	cr_assert_eq(cgroup_fold_tombstones(&t), FOLD_TOMB_MAX);
	cr_assert_eq(nforgotten, 2);
	cr_assert_eq(forgotten[0], 101, "equally quiet: the lowest ids go first");
	cr_assert_eq(forgotten[1], 102);
	free(all);
	free(paths);
}

Test(cgroup_fold, a_cgroup_never_walked_has_no_ancestor_to_fold_into)
{
	struct taod_cg_counters c = counts(3, 3);

	cgroup_table_begin_tick(&t);
	cgroup_table_touch(&t, 1, "/", 0, 1000);
	cgroup_table_set_counters(&t, 99, &c, 1000); /* made and gone within a tick */
	cgroup_table_begin_tick(&t);
	cgroup_table_touch(&t, 1, "/", 0, 2000);
	cgroup_table_sweep(&t, NULL, NULL, NULL, 2000);
	cr_assert_null(cgroup_table_find(&t, 99));
	cr_assert_eq(cgroup_fold_tombstones(&t), 0);
	cr_assert_eq(evidence(1).pmd_split, 0);
}

/* A tick's BPF reading names @id, which no walk found; BPF noted @a. The
 * tick's walk is the caller's (walk_now). */
static void charged_unwalked(uint64_t id, const struct taod_cg_counters *c,
			     const struct taod_cg_ancestry *a, uint64_t now)
{
	struct cgroup_entry *e;

	cgroup_table_begin_tick(&t);
	e = cgroup_table_set_counters(&t, id, c, now);

	cr_assert_not_null(e);
	cr_assert(cgroup_entry_wants_ancestry(e));
	cgroup_entry_set_ancestry(e, a);
	cr_assert_not(cgroup_entry_wants_ancestry(e), "BPF is asked once");
}

/* From a walk that finds @all: @id is charged, unwalked, then every
 * cgroup past the first @stay goes, @id too. */
static void unwalked_and_gone(uint64_t id, const struct taod_cg_ancestry *a,
			      const uint64_t (*all)[2], const char *const *paths, size_t n,
			      size_t stay)
{
	struct taod_cg_counters c = counts(2, 2);

	walk(all, paths, n, 1000);
	charged_unwalked(id, &c, a, 1100);
	walk_now(all, paths, n, 1100);
	walk(all, paths, stay, 1300);
	cr_assert_null(cgroup_table_find(&t, id));
}

Test(cgroup_fold, a_cgroup_never_walked_folds_into_the_parent_bpf_noted)
{
	const uint64_t all[][2] = {{1, 0}, {10, 1}};
	const char *const paths[] = {"/", "/tenant"};
	const struct taod_cg_ancestry a = {.id = {10, 1}};
	struct taod_cg_counters c = counts(5, 4);

	walk(all, paths, 2, 1000);
	charged_unwalked(99, &c, &a, 1200); /* made, used, removed within a tick */
	walk_now(all, paths, 2, 1200);	    /* the same tick's walk: grace */
	cr_assert_not_null(cgroup_table_find(&t, 99));
	/* The next tick's reading asks for a walk at once, which folds it. */
	t.unknown_ids = false;
	cgroup_table_begin_tick(&t);
	cgroup_table_set_counters(&t, 99, &c, 1400);
	cr_assert(t.unknown_ids);
	walk_now(all, paths, 2, 1400);
	cr_assert_null(cgroup_table_find(&t, 99));
	cr_assert_eq(evidence(10).thp_alloc, 5);
	cr_assert_eq(evidence(10).pmd_split, 4);
	cr_assert_eq(evidence(10).split_pages, 4 * 512);
	/* Its late splits follow its tombstone. */
	c = counts(5, 6);
	cr_assert_null(cgroup_table_set_counters(&t, 99, &c, 1600));
	cr_assert_eq(evidence(10).pmd_split, 6);
}

Test(cgroup_fold, a_never_walked_cgroup_skips_ancestors_gone_too)
{
	/* The hopper made /tenant/burst/leaf, used only the leaf, removed
	 * both: burst was never charged nor walked; the leaf reaches /tenant. */
	const uint64_t all[][2] = {{1, 0}, {10, 1}};
	const char *const paths[] = {"/", "/tenant"};
	const struct taod_cg_ancestry a = {.id = {50, 10, 1}};

	unwalked_and_gone(51, &a, all, paths, 2, 2);
	cr_assert_eq(evidence(10).pmd_split, 2);
	cr_assert_eq(evidence(1).pmd_split, 0, "the nearest live ancestor, not the root");
}

Test(cgroup_fold, a_walked_parent_removed_with_its_unwalked_child_leads_through)
{
	/* /t/p was walked, its child never: both go in one walk, the child's
	 * evidence reaches /t through p's tombstone. */
	const uint64_t all[][2] = {{1, 0}, {10, 1}, {11, 10}};
	const char *const paths[] = {"/", "/t", "/t/p"};
	const struct taod_cg_ancestry a = {.id = {11, 10, 1}};

	unwalked_and_gone(12, &a, all, paths, 3, 2);
	cr_assert_eq(evidence(10).pmd_split, 2);
	cr_assert_eq(cgroup_fold_tombstones(&t), 2);
}

Test(cgroup_fold, an_id_bpf_has_no_ancestry_of_is_asked_once_and_lost_when_gone)
{
	struct taod_cg_counters c = counts(1, 1);

	charged_unwalked(98, &c, NULL, 1000);
	walk_now((const uint64_t[][2]){{1, 0}}, (const char *const[]){"/"}, 1, 1000);
	t.unknown_ids = false;
	cgroup_table_begin_tick(&t);
	cgroup_table_set_counters(&t, 98, &c, 1200);
	cr_assert_not(t.unknown_ids, "nothing to fold into: no walk asked for");
	walk_now((const uint64_t[][2]){{1, 0}}, (const char *const[]){"/"}, 1, 1200);
	cr_assert_null(cgroup_table_find(&t, 98));
	cr_assert_eq(evidence(1).pmd_split, 0);
}

/* Per-size events: a removed child's, and its late ones, are shown with
 * its parent's own (size_counts_shown), which keeps its own nr_anon. */
Test(cgroup_fold, per_size_events_of_a_removed_child_fold_into_its_parent)
{
	const uint64_t all[][2] = {{1, 0}, {10, 1}, {11, 10}, {12, 11}};
	const char *const paths[] = {"/", "/p", "/p/c", "/p/c/g"};
	struct taod_cg_sizes child = {0}, shown;

	walk(all, paths, 4, 1000);
	cgroup_table_find(&t, 10)->sizes.fault_alloc[4] = 1;
	cgroup_table_find(&t, 10)->sizes.nr_anon[4] = 1;
	child.fault_alloc[4] = 32;
	child.partial[4] = 8;
	child.nr_anon[4] = 32;
	cgroup_table_find(&t, 11)->sizes = child;
	cgroup_table_find(&t, 12)->sizes.split[2] = 5; /* the grandchild goes too */
	walk(all, paths, 2, 2000);
	size_counts_shown(cgroup_table_find(&t, 10), &shown);
	cr_assert_eq(shown.fault_alloc[4], 33);
	cr_assert_eq(shown.partial[4], 8);
	cr_assert_eq(shown.split[2], 5);
	cr_assert_eq(shown.nr_anon[4], 1, "bytes held are the cgroup's own");

	child.split[4] = 8; /* the deferred split comes after the removal */
	cr_assert(cgroup_fold_late_sizes(&t, 11, &child, 3000));
	cr_assert(cgroup_fold_late_sizes(&t, 11, &child, 4000)); /* the same reading: nothing */
	size_counts_shown(cgroup_table_find(&t, 10), &shown);
	cr_assert_eq(shown.split[4], 8);
	cr_assert_eq(shown.fault_alloc[4], 33);
	cr_assert_not(cgroup_fold_late_sizes(&t, 99, &child, 4000), "not a removed cgroup");
}

/* Issue 26: a removed child's THPs stay charged to its dying memcg, partly
 * mapped: its parent strands them while the child's BPF row counts them,
 * never more (a gauge, not folded history), and none once it is forgotten. */
Test(cgroup_fold, partly_mapped_thps_of_a_removed_child_stay_its_parents_while_they_last)
{
	const uint64_t all[][2] = {{1, 0}, {10, 1}, {11, 10}};
	const char *const paths[] = {"/", "/p", "/p/hop1"};
	struct taod_cg_sizes child = {0};
	int pmd = size_pmd_order();

	walk(all, paths, 3, 1000);
	cgroup_table_find(&t, 10)->sizes.nr_partial[pmd] = 1;
	child.nr_partial[pmd] = 5;
	cgroup_table_find(&t, 11)->sizes = child;
	walk(all, paths, 2, 2000);
	cr_assert_eq(size_partial_folios(cgroup_table_find(&t, 10), pmd), 6);
	cr_assert_eq(evidence(10).partly_mapped_thps, 6);
	child.nr_partial[pmd] = 2; /* the hopper freed 3 */
	cgroup_fold_late_sizes(&t, 11, &child, 3000);
	cgroup_fold_late_sizes(&t, 11, &child, 3500); /* the same reading: nothing */
	cr_assert_eq(evidence(10).partly_mapped_thps, 3);
	cr_assert_eq(evidence(10).pmd_split, 0);
	walk(all, paths, 2, 3001 + FOLD_TOMB_IDLE_MS); /* forgotten: no longer counted */
	cr_assert_eq(cgroup_fold_tombstones(&t), 0);
	cr_assert_eq(evidence(10).partly_mapped_thps, 1);
}

/* BPF's row of a removed cgroup taken out of the map as it goes: what came
 * after the tick's reading folds, and the row BPF makes anew for a late
 * event counts from zero, so nothing is lost or counted twice. */
Test(cgroup_fold, a_reclaimed_row_folds_the_rest_and_counts_anew_from_zero)
{
	const uint64_t all[][2] = {{1, 0}, {10, 1}, {11, 10}};
	const char *const paths[] = {"/", "/p", "/p/hop1"};
	struct taod_cg_counters read = counts(8, 6), taken = counts(9, 7), late = counts(2, 1);

	walk(all, paths, 3, 1000);
	cgroup_table_set_counters(&t, 11, &read, 1000);
	walk(all, paths, 2, 2000); /* hop1 removed: folded as read */
	cr_assert(cgroup_fold_follows(&t, 11));
	cr_assert(cgroup_fold_reclaimed(&t, 11, &taken, NULL, 2000)); /* one more of each */
	cr_assert_eq(evidence(10).thp_alloc, 9);
	cr_assert_eq(evidence(10).pmd_split, 7);
	/* A late split makes a new row, from zero: all of it is new. */
	cgroup_table_set_counters(&t, 11, &late, 3000);
	cr_assert_eq(evidence(10).thp_alloc, 11);
	cr_assert_eq(evidence(10).pmd_split, 8);
	cr_assert_eq(evidence(10).split_pages, 8 * 512);
	cr_assert_null(cgroup_table_find(&t, 11));
	cr_assert_not(cgroup_fold_reclaimed(&t, 10, &late, NULL, 3000), "a live cgroup");
	cr_assert_not(cgroup_fold_follows(&t, 10));
}

/* A removed child's cg_sizes row that still holds folios partly mapped is
 * read and left in its map (BPF takes a gauge down only in a row that
 * exists): its baseline stays, so the same reading adds nothing and a drop
 * of the gauge is the parent's too. */
Test(cgroup_fold, a_sizes_row_kept_for_its_gauges_keeps_its_baseline)
{
	const uint64_t all[][2] = {{1, 0}, {10, 1}, {11, 10}};
	const char *const paths[] = {"/", "/p", "/p/hop1"};
	struct taod_cg_counters taken = counts(3, 2);
	struct taod_cg_sizes child = {0};
	int pmd = size_pmd_order();

	walk(all, paths, 3, 1000);
	child.nr_partial[pmd] = 5;
	cgroup_table_find(&t, 11)->sizes = child;
	walk(all, paths, 2, 2000);
	cr_assert_eq(evidence(10).partly_mapped_thps, 5);
	/* The counters row taken, the sizes row kept and read again. */
	cr_assert(cgroup_fold_reclaimed(&t, 11, &taken, NULL, 2500));
	cr_assert(cgroup_fold_late_sizes(&t, 11, &child, 2500));
	cr_assert_eq(evidence(10).partly_mapped_thps, 5);
	child.nr_partial[pmd] = 2;
	cgroup_fold_late_sizes(&t, 11, &child, 3000);
	cr_assert_eq(evidence(10).partly_mapped_thps, 2);
}
