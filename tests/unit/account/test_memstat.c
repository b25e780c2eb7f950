// SPDX-License-Identifier: GPL-2.0
#include <criterion/criterion.h>
#include <errno.h>

#include "account/memstat.h"

static const char v2_stat[] = "anon 10485760\n"
			      "file 4096\n"
			      "kernel 0\n"
			      "anon_thp 4194304\n"
			      "file_thp 0\n";

static const char v1_stat[] = "cache 444919808\n"
			      "rss 1880064\n"
			      "rss_huge 0\n"
			      "total_rss 8388608\n"
			      "total_rss_huge 6291456\n";

Test(memstat, v2_anon_and_thp)
{
	struct memstat m;

	cr_assert_eq(memstat_parse(v2_stat, "anon", "anon_thp", &m), 0);
	cr_assert_eq(m.anon_bytes, 10485760);
	cr_assert_eq(m.thp_bytes, 4194304);
	cr_assert_float_eq(memstat_coverage_pct(&m), 40.0, 1e-9);
}

Test(memstat, v1_uses_total_keys_not_prefix_matches)
{
	struct memstat m;

	/* "rss" must not match "rss_huge" or "total_rss". */
	cr_assert_eq(memstat_parse(v1_stat, "rss", "rss_huge", &m), 0);
	cr_assert_eq(m.anon_bytes, 1880064);
	cr_assert_eq(m.thp_bytes, 0);
	cr_assert_eq(memstat_parse(v1_stat, "total_rss", "total_rss_huge", &m), 0);
	cr_assert_eq(m.anon_bytes, 8388608);
	cr_assert_float_eq(memstat_coverage_pct(&m), 75.0, 1e-9);
}

Test(memstat, no_anon_means_unknown_coverage)
{
	struct memstat m;

	cr_assert_eq(memstat_parse("anon 0\nanon_thp 0\n", "anon", "anon_thp", &m), 0);
	cr_assert_lt(memstat_coverage_pct(&m), 0);
	cr_assert_eq(memstat_parse("file 5\n", "anon", "anon_thp", &m), -ENOENT);
	cr_assert_lt(memstat_coverage_pct(&m), 0);
}

Test(memstat, malformed_values_rejected)
{
	struct memstat m;

	cr_assert_eq(memstat_parse("anon 12abc\nanon_thp 0\n", "anon", "anon_thp", &m), -EINVAL);
	cr_assert_eq(memstat_parse("anon \nanon_thp 0\n", "anon", "anon_thp", &m), -EINVAL);
}

Test(memstat, coverage_capped_at_100)
{
	struct memstat m = {.anon_bytes = 100, .thp_bytes = 200, .has_anon = true};

	cr_assert_float_eq(memstat_coverage_pct(&m), 100.0, 1e-9);
}
