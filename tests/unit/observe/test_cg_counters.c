// SPDX-License-Identifier: GPL-2.0
/* The per-cgroup counter list: its table, values and the per-CPU sum. */
#include <criterion/criterion.h>
#include <signal.h>
#include <string.h>

#include "observe/cg_counters.h"

/* The protocol's names, in its order: clients and docs/protocol.md read them so. */
Test(cg_counters, cg_counters)
{
	static const char *const json[] = {
	    "thp_fault_alloc", "thp_collapse_alloc", "thp_fault_fallback", "pmd_mapped_pages",
	    "pmd_split",       "pmd_split_pages",    "pmd_unmap_whole",	   "split_exact"};

	cr_assert_eq(CG_NCOUNTERS, sizeof(json) / sizeof(*json));
	for (size_t i = 0; i < CG_NCOUNTERS; i++)
		cr_expect_str_eq(cg_counters[i].json, json[i]);
	cr_expect_str_eq(cg_counters[3].field, "pmd_map_pages");
	cr_expect_eq(cg_counters[4].history, 1);
	cr_expect_str_eq(cg_counters[6].metric, "taod_cgroup_pmd_whole_unmaps_total");
	cr_expect_str_eq(cg_counters[0].metric, "");
}

Test(cg_counters, cg_counter_value)
{
	struct taod_cg_counters c = {
	    .thp_collapse_alloc = 7, .pmd_map_pages = 512, .split_exact = 9};

	cr_expect_eq(cg_counter_value(&c, &cg_counters[1]), 7);
	cr_expect_eq(cg_counter_value(&c, &cg_counters[3]), 512);
	cr_expect_eq(cg_counter_value(&c, &cg_counters[7]), 9);
	cr_expect_eq(cg_counter_value(&c, &cg_counters[0]), 0);
}

/* Every counter of the list and every folio order adds up over the CPUs. */
Test(cg_counters, cg_counters_sum)
{
	struct taod_cg_counters cpu[3], sum;

	memset(cpu, 0, sizeof(cpu));
	for (int i = 0; i < 3; i++) {
		cpu[i].thp_fault_alloc = 1u << i;
		cpu[i].pmd_unmap_whole = 10u * (i + 1);
		cpu[i].split_exact = 100;
		cpu[i].folio_alloc[TAOD_MAX_ORDER - 1] = 2;
	}
	memset(&sum, 0xff, sizeof(sum)); /* overwritten, not added to */
	cg_counters_sum(cpu, 3, &sum);
	cr_expect_eq(sum.thp_fault_alloc, 7);
	cr_expect_eq(sum.pmd_unmap_whole, 60);
	cr_expect_eq(sum.split_exact, 300);
	cr_expect_eq(sum.folio_alloc[TAOD_MAX_ORDER - 1], 6);
	cr_expect_eq(sum.pmd_split, 0);
	cr_expect_eq(sum.folio_alloc[0], 0);
}

/* A list of its own, one more counter than main's: the struct member and
 * the table row come from its row alone. */
#define TEST_COUNTERS(X)                                                                           \
	X(alpha, "alpha", 0, "", "")                                                               \
	X(beta_raw, "beta", 4, "taod_cgroup_beta_total", "Betas.")

#define TEST_FIELD_(f, ...) __u64 f;
struct test_counters {
	TEST_COUNTERS(TEST_FIELD_)
};
#define TEST_ROW_(...) CG_COUNTER_ROW(struct test_counters, __VA_ARGS__)
static const struct cg_counter test_table[] = {TEST_COUNTERS(TEST_ROW_)};

Test(cg_counters, CG_COUNTER_ROW)
{
	struct test_counters c = {.alpha = 1, .beta_raw = 2};
	__u64 v;

	cr_assert_eq(sizeof(test_table) / sizeof(*test_table), 2);
	cr_expect_str_eq(test_table[1].field, "beta_raw");
	cr_expect_str_eq(test_table[1].json, "beta");
	cr_expect_eq(test_table[1].history, 4);
	cr_expect_str_eq(test_table[1].metric, "taod_cgroup_beta_total");
	cr_expect_str_eq(test_table[1].help, "Betas.");
	memcpy(&v, (const char *)&c + test_table[1].offset, sizeof(v));
	cr_expect_eq(v, 2);
}

/* The per-CPU values come from the daemon's own buffer: none is a bug. */
Test(cg_counters, cg_counters_sum_of_no_values_aborts, .signal = SIGABRT)
{
	struct taod_cg_counters s;

	cg_counters_sum(NULL, 2, &s);
}
