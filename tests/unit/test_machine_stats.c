// SPDX-License-Identifier: GPL-2.0
#include <criterion/criterion.h>
#include <stdlib.h>

#include "taod/machine_stats.h"

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
