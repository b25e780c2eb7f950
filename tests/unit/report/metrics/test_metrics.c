// SPDX-License-Identifier: GPL-2.0
/* Prometheus exposition: escaping, families, and the atomic textfile. */
#include <criterion/criterion.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "report/metrics/metrics.h"
#include "act/gate/cost_totals.h"
#include "common/rootfs.h"

#include "../../support/scratch.h"

Test(metrics, label_escaping)
{
	char out[64];

	prom_escape_label("a\\b\"c\nd", out, sizeof(out));
	cr_assert_str_eq(out, "a\\\\b\\\"c\\nd");
	prom_escape_label("\"\"\"\"", out, 6); /* never a half escape at the end */
	cr_assert_str_eq(out, "\\\"\\\"");
}

static void table_with_two(struct cgroup_table *t)
{
	struct taod_cg_counters c = {
	    .thp_fault_alloc = 5, .thp_collapse_alloc = 1, .pmd_split = 2, .pmd_unmap_whole = 3};
	struct memstat m = {.anon_bytes = 4096, .thp_bytes = 1024, .has_anon = true};
	struct cgroup_entry *e;

	cgroup_table_init(t, 2);
	cgroup_table_set_counters(t, 1, &c, 1);
	e = cgroup_table_touch(t, 1, "/we\"ird\\", 0, 1);
	cgroup_entry_set_memstat(e, &m, true);
	cgroup_table_touch(t, 2, "/empty", 0, 1); /* no memory.stat: no gauges */
}

Test(metrics, families_and_values)
{
	struct cgroup_table t;
	uint64_t stats[TAOD_STAT_MAX] = {10, 20, 30, 40, 5};
	struct metrics_input in = {.bpf_stats = stats, .ticks = 9, .version = "v1"};
	char *text;

	table_with_two(&t);
	in.cgroups = &t;
	text = metrics_text(&in);
	cr_assert_not_null(text);
	cr_assert(strstr(text, "# TYPE taod_cgroup_thp_allocations_total counter\n"));
	cr_assert(strstr(text, "taod_cgroup_thp_allocations_total{cgroup=\"/we\\\"ird\\\\\"} 6\n"),
		  "%s", text);
	cr_assert(strstr(text, "taod_cgroup_thp_coverage_ratio{cgroup=\"/we\\\"ird\\\\\"} 0.25\n"));
	cr_assert(strstr(text, "taod_cgroup_pmd_whole_unmaps_total{cgroup=\"/empty\"} 0\n"));
	cr_assert_null(strstr(text, "taod_cgroup_anon_bytes{cgroup=\"/empty\"}"));
	cr_assert(strstr(text, "taod_bpf_events_total{program=\"lruvec\"} 20\n"));
	cr_assert(strstr(text, "taod_ticks_total 9\n"));
	cr_assert(strstr(text, "taod_up 1\n"));
	free(text);
	cgroup_table_free(&t);
}

/* Per cgroup and folio size with an event, three counters labelled by
 * event; sizes with none are left out. */
Test(metrics, mthp_sizes_by_label)
{
	struct cgroup_table t;
	uint64_t stats[TAOD_STAT_MAX] = {0};
	struct metrics_input in = {.bpf_stats = stats, .version = "v1"};
	struct cgroup_entry *e;
	char *text;

	table_with_two(&t);
	e = cgroup_table_find(&t, 2);
	e->sizes.fault_alloc[4] = 32;
	e->sizes.partial[4] = 8;
	in.cgroups = &t;
	text = metrics_text(&in);
	cr_assert_not_null(text);
	cr_assert(strstr(text, "# TYPE taod_cgroup_mthp_folios_total counter\n"));
	cr_assert(strstr(text, "taod_cgroup_mthp_folios_total{cgroup=\"/empty\",size_kb=\"64\","
			       "event=\"fault_alloc\"} 32\n"),
		  "%s", text);
	cr_assert(strstr(text, "size_kb=\"64\",event=\"partial_unmap\"} 8\n"));
	cr_assert(strstr(text, "size_kb=\"64\",event=\"split\"} 0\n"));
	cr_assert_null(strstr(text, "size_kb=\"16\""));
	cr_assert_null(strstr(text, "mthp_folios_total{cgroup=\"/we"));
	free(text);
	cgroup_table_free(&t);
}

Test(metrics, textfile_replaced_atomically)
{
	char dir[SCRATCH_DIR_MAX], path[128], tmp[144], text[8192];
	struct cgroup_table t;
	uint64_t stats[TAOD_STAT_MAX] = {0};
	struct metrics_input in = {.bpf_stats = stats, .ticks = 1};
	struct stat st1, st2;

	scratch_make(dir, "prom");
	snprintf(path, sizeof(path), "%s/taod.prom", dir);
	snprintf(tmp, sizeof(tmp), "%s.tmp", path);
	table_with_two(&t);
	in.cgroups = &t;
	cr_assert_eq(metrics_textfile_write(path, &in), 0);
	cr_assert_eq(stat(path, &st1), 0);
	in.ticks = 2;
	cr_assert_eq(metrics_textfile_write(path, &in), 0);
	cr_assert_eq(stat(path, &st2), 0);
	cr_assert_neq(st1.st_ino, st2.st_ino, "a new file renamed over the old one");
	cr_assert_neq(access(tmp, F_OK), 0, "no temporary left behind");
	cr_assert_gt(read_file(path, text, sizeof(text)), 0);
	cr_assert(strstr(text, "taod_ticks_total 2\n"));
	cr_assert_eq(scratch_remove(dir), 0);
	snprintf(path, sizeof(path), "/nonexistent-dir/taod.prom");
	cr_assert_lt(metrics_textfile_write(path, &in), 0);
	cgroup_table_free(&t);
}

Test(metrics, textfile_ignores_a_symlink_at_the_old_temporary_name)
{
	char dir[SCRATCH_DIR_MAX], path[128], tmp[144], victim[128], text[64] = {0};
	struct cgroup_table t;
	uint64_t stats[TAOD_STAT_MAX] = {0};
	struct metrics_input in = {.bpf_stats = stats, .ticks = 1};
	struct stat st;

	scratch_make(dir, "prom");
	snprintf(path, sizeof(path), "%s/taod.prom", dir);
	snprintf(tmp, sizeof(tmp), "%s.tmp", path);
	snprintf(victim, sizeof(victim), "%s", scratch_write(dir, "victim", "precious\n"));
	cr_assert_eq(symlink(victim, tmp), 0);
	table_with_two(&t);
	in.cgroups = &t;
	cr_assert_eq(metrics_textfile_write(path, &in), 0);
	cr_assert_gt(read_file(victim, text, sizeof(text)), 0);
	cr_assert_str_eq(text, "precious\n");
	cr_assert_eq(stat(path, &st), 0);
	cr_assert_eq(st.st_mode & 07777, 0644);
	cr_assert_eq(scratch_remove(dir), 0);
	cgroup_table_free(&t);
}

/*
 * The per-cgroup families (memory, coverage, THP counters) of the two
 * cgroups, byte for byte as taod wrote them before the per-cgroup counters
 * became a list (issue 18): names, HELP, TYPE and order are what
 * dashboards and alerts read. Other families (per size, workload) have
 * tests of their own.
 */
static char *cgroup_families(const char *text)
{
	const char *from = strstr(text, "# HELP taod_cgroup_anon_bytes ");
	const char *last = from ? strstr(from, "# HELP taod_cgroup_pmd_whole_unmaps_total ") : NULL;
	const char *to = last ? strstr(last + 1, "# HELP ") : NULL;

	cr_assert_not_null(last, "%s", text);
	return strndup(from, to ? (size_t)(to - from) : strlen(from));
}

Test(metrics, metrics_text)
{
	struct cgroup_table t;
	uint64_t stats[TAOD_STAT_MAX] = {10, 20, 30, 40, 5};
	struct metrics_input in = {.bpf_stats = stats, .ticks = 9, .version = "v1"};
	const char *golden = "unit/report/data/golden-metrics.txt";
	char *text, *block, *want = NULL;
	size_t len = 0;
	FILE *f;

	table_with_two(&t);
	in.cgroups = &t;
	text = metrics_text(&in);
	cr_assert_not_null(text);
	block = cgroup_families(text);
	if (getenv("TAOD_GOLDEN_WRITE")) { /* only for a change meant to alter the output */
		f = fopen(golden, "w");
		cr_assert_not_null(f);
		fputs(block, f);
		fclose(f);
	}
	f = fopen(golden, "r");
	cr_assert_not_null(f, "%s", golden);
	cr_assert_geq(getdelim(&want, &len, '\0', f), 0);
	fclose(f);
	cr_expect_str_eq(block, want);
	free(want);
	free(block);
	free(text);
	cgroup_table_free(&t);
}

/* What the cost series say of two shatters and a final follow-up; and what they leave out. */
static const char *const cost_lines[] = {
    "# TYPE taod_action_cpu_seconds_total counter\n",
    "taod_action_cpu_seconds_total{kind=\"shatter\",phase=\"lever\"} 3.000000\n",
    "taod_action_cpu_seconds_total{kind=\"shatter\",phase=\"compaction\"} 0.500000\n",
    "taod_action_wall_seconds_total{kind=\"shatter\",phase=\"drain\"} 0.000020\n",
    "taod_action_costed_total{kind=\"shatter\"} 2\n",
    "taod_action_kernel_total{kind=\"shatter\",stat=\"thp_split_page\"} 14\n",
    /* Only the final follow-up counts: one, two blocks fewer. */
    "taod_action_benefit_followed_total{kind=\"shatter\"} 1\n",
    "taod_action_benefit_free_pmd_blocks{kind=\"shatter\"} -2\n",
    "taod_action_benefit_near_zero{kind=\"shatter\"} 1\n",
    "taod_action_benefit_near_zero{kind=\"collapse\"} 0\n",
};
static const char *const cost_absent[] = {
    "stat=\"thp_split_pmd\"",				/* a counter vmstat lacked */
    "kind=\"warn\"",					/* nothing measured */
    "taod_action_benefit_near_zero{kind=\"restrict\"}", /* nothing followed up */
};

Test(metrics, action_costs_by_kind_and_phase)
{
	struct cgroup_table t;
	uint64_t stats[TAOD_STAT_MAX] = {0};
	struct cost_totals c = {0};
	struct action_cost shatter = {.measured = true,
				      .cpu_us = {1500000, 250000, 0},
				      .wall_us = {2000000, 500000, 10},
				      .kernel_present = 1u << COST_thp_split_page,
				      .kernel = {[COST_thp_split_page] = 7}};
	struct action_benefit fin = {.final = true, .free_known = true, .free_pmd_regained = -2};
	struct metrics_input in = {.bpf_stats = stats,
				   .costs = &c,
				   .benefit_flag = {[ACTION_SHATTER] = METRICS_BENEFIT_NEAR_ZERO,
						    [ACTION_COLLAPSE] = METRICS_BENEFIT_WORTH}};
	char *text;

	cost_totals_add(&c, ACTION_SHATTER, &shatter);
	cost_totals_add(&c, ACTION_SHATTER, &shatter);
	cost_totals_add(&c, ACTION_WARN, &(struct action_cost){0}); /* not measured */
	cost_totals_benefit(&c, ACTION_SHATTER, &fin);
	cost_totals_benefit(&c, ACTION_SHATTER, &(struct action_benefit){.free_known = true});
	cgroup_table_init(&t, 1);
	in.cgroups = &t;
	text = metrics_text(&in);
	cr_assert_not_null(text);
	for (size_t i = 0; i < sizeof(cost_lines) / sizeof(*cost_lines); i++)
		cr_assert(strstr(text, cost_lines[i]), "%s missing:\n%s", cost_lines[i], text);
	for (size_t i = 0; i < sizeof(cost_absent) / sizeof(*cost_absent); i++)
		cr_assert_null(strstr(text, cost_absent[i]), "%s", cost_absent[i]);
	free(text);
	cgroup_table_free(&t);
}

/* Every caller has a buffer: no room even for the NUL is a bug. */
Test(metrics, prom_escape_label_into_no_room_aborts, .signal = SIGABRT)
{
	char out[1];

	prom_escape_label("a", out, 0);
}
