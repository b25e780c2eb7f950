// SPDX-License-Identifier: GPL-2.0
#include <criterion/criterion.h>

#include "common/sat_math.h"

Test(sat_math, sat_add_u64_ends_at_the_top)
{
	cr_assert_eq(sat_add_u64(1, 2), 3);
	cr_assert_eq(sat_add_u64(UINT64_MAX - 1, 1), UINT64_MAX);
	cr_assert_eq(sat_add_u64(UINT64_MAX - 1, 5), UINT64_MAX);
	cr_assert_eq(sat_add_u64(1796545218127ULL, UINT64_MAX), UINT64_MAX);
}

Test(sat_math, sat_mul_u64_ends_at_the_top)
{
	cr_assert_eq(sat_mul_u64(3, 4), 12);
	cr_assert_eq(sat_mul_u64(0, UINT64_MAX), 0);
	cr_assert_eq(sat_mul_u64(UINT64_MAX, 0), 0);
	cr_assert_eq(sat_mul_u64(18446744073709552ULL, 1000), UINT64_MAX);
}
