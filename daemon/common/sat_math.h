/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Saturating arithmetic for times and sizes from the configuration: a
 * value that would wrap ends at UINT64_MAX ("never", "all"), never at a
 * small number such as "now".
 */
#ifndef TAOD_SAT_MATH_H
#define TAOD_SAT_MATH_H

#include <stdint.h>

static inline uint64_t sat_add_u64(uint64_t a, uint64_t b)
{
	return a > UINT64_MAX - b ? UINT64_MAX : a + b;
}

static inline uint64_t sat_mul_u64(uint64_t a, uint64_t b)
{
	return b && a > UINT64_MAX / b ? UINT64_MAX : a * b;
}

#endif
