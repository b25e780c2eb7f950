// SPDX-License-Identifier: GPL-2.0
/* busiest_pick: every flagged row, then the busiest few with any traffic. */
#include <criterion/criterion.h>

#include "common/busiest.h"

Test(busiest, flagged_always_then_the_top_busy)
{
	bool flagged[6] = {false, true, false, false, false, true};
	uint64_t busy[6] = {5, 0, 9, 0, 7, 100};
	bool show[6];

	cr_assert_eq(busiest_pick(flagged, busy, 6, 2, show), 4);
	/* flagged 1 (idle) and 5; of the rest 2 (9) and 4 (7), not 0 (5) nor 3 (idle) */
	cr_assert(show[1] && show[5] && show[2] && show[4]);
	cr_assert(!show[0] && !show[3]);
}

Test(busiest, idle_rows_never_fill_the_top)
{
	bool flagged[3] = {false, false, false};
	uint64_t busy[3] = {0, 3, 0};
	bool show[3];

	cr_assert_eq(busiest_pick(flagged, busy, 3, 20, show), 1);
	cr_assert(!show[0] && show[1] && !show[2]);
}

Test(busiest, ties_go_to_the_earlier_row)
{
	bool flagged[3] = {false, false, false};
	uint64_t busy[3] = {4, 4, 4};
	bool show[3];

	cr_assert_eq(busiest_pick(flagged, busy, 3, 2, show), 2);
	cr_assert(show[0] && show[1] && !show[2]);
}
