// SPDX-License-Identifier: GPL-2.0
#include <criterion/criterion.h>

#include "taod/mthp_probe.h"

Test(mthp_probe, mode_text)
{
	cr_assert_not(mthp_mode_on("always inherit madvise [never]\n"));
	cr_assert(mthp_mode_on("always [inherit] madvise never\n"));
	cr_assert(mthp_mode_on("[always] inherit madvise never\n"));
	cr_assert_not(mthp_mode_on(""));
}
