// SPDX-License-Identifier: GPL-2.0
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <stdlib.h>

#include "account/machine_stats.h"

static const char zoneinfo[] = "Node 0, zone      DMA\n"
			       "  per-node stats\n"
			       "      nr_inactive_anon 1411\n"
			       "  pages free     3840\n"
			       "        min      11\n"
			       "        present  3999\n"
			       "        managed  3840\n"
			       "Node 0, zone   Normal\n"
			       "  pages free     309772\n"
			       "        present  524288\n"
			       "        managed  491520\n"
			       "      nr_free_pages 309772\n"
			       "garbage line without numbers\n"
			       "Node 1, zone  NoSplit\n"
			       "  pages free     10\n"
			       "        present  20\n"
			       "        managed  20\n";
static const char buddyinfo[] =
    "Node 0, zone      DMA      0      0      0      1      3 \n"
    "Node 0, zone   Normal    204    447    307\n"
    "Node 1, zone  NoSplit      0      0      0      0      0      0      0      0      0      5\n";

Test(machine_stats, zoneinfo_and_buddyinfo)
{
	struct machine_stats *m = calloc(1, sizeof(*m));

	cr_assert_eq(machine_parse_zoneinfo(zoneinfo, m), 0);
	cr_assert_eq(machine_parse_buddyinfo(buddyinfo, m), 0);
	cr_assert_eq(m->nzones, 3);
	cr_assert_str_eq(m->zones[1].name, "Normal");
	cr_assert_eq(m->zones[1].free_pages, 309772);
	cr_assert_eq(m->zones[1].present_pages, 524288);
	cr_assert_eq(m->zones[1].managed_pages, 491520);
	cr_assert_eq(m->zones[0].norders, 5);
	cr_assert_eq(m->zones[0].free_blocks[4], 3);
	cr_assert_eq(m->zones[1].norders, 3);
	cr_assert_eq(m->zones[2].node, 1);
	cr_assert_eq(m->zones[2].norders, 10);
	cr_assert_eq(m->zones[2].free_blocks[9], 5);
	free(m);
}

/* CPU time, not wall time: a loaded machine must not fail the test. */
static double elapsed_ms(const struct timespec *a)
{
	struct timespec b;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &b);
	return (double)(b.tv_sec - a->tv_sec) * 1e3 + (double)(b.tv_nsec - a->tv_nsec) / 1e6;
}

/* Was quadratic: 872 KB took 409 ms on the event loop. Linear: a few ms
 * (sanitized builds about ten times that, still far below the bound). */
Test(machine_stats, a_megabyte_of_zoneinfo_parses_in_linear_time)
{
	static struct machine_stats m;
	size_t cap = 1 << 20, len = 0;
	char *text = malloc(cap + 64);
	struct timespec t0;
	double ms;

	len += (size_t)sprintf(text, "Node 0, zone   Normal\n  pages free 7\n");
	while (len < cap)
		len += (size_t)sprintf(text + len, "        nr_some_counter %zu\n", len);
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t0);
	machine_parse_zoneinfo(text, &m);
	machine_parse_buddyinfo(text, &m);
	ms = elapsed_ms(&t0);
	cr_assert_lt(ms, 100.0, "took %.1f ms", ms);
	cr_assert_eq(m.zones[0].free_pages, 7);
	free(text);
}

Test(machine_stats, buddyinfo_counts_never_come_from_the_next_line)
{
	static struct machine_stats m;

	machine_parse_buddyinfo("Node 0, zone   Normal 1 2 \n3 4\n", &m);
	cr_assert_eq(m.zones[0].norders, 2);
}
