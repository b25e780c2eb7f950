/* SPDX-License-Identifier: GPL-2.0 */
#ifndef TAOD_CLOCK_H
#define TAOD_CLOCK_H

#include <stdint.h>

uint64_t monotonic_us(void);
uint64_t monotonic_ms(void);
uint64_t realtime_ms(void);

#endif
