/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The THP memory every tenant holds, and its peak over a window: what the
 * boot-time zone recommendation (taoctl zones) must not size the zones
 * below. The peak is defined in thp_held.c; thp_held_sum (decide.h) in
 * zone_demand.c, beside the guarantees' demand it shares a walk with.
 */
#ifndef TAOD_DECIDE_THP_HELD_H
#define TAOD_DECIDE_THP_HELD_H

#include <stdint.h>

struct thp_held {
	uint64_t held_bytes;	  /* THP bytes of the top-most cgroups' memory.stat */
	uint64_t shortfall_bytes; /* guarantees' promise beyond what those cgroups hold */
	unsigned cgroups;	  /* top-most cgroups counted (memory.stat read) */
	unsigned guaranteed;	  /* top-most guaranteed cgroups counted */
};

#define THP_PEAK_SLOTS 64

/* The largest value seen in each of THP_PEAK_SLOTS slices of a window. */
struct thp_peak {
	uint64_t slot_ms;
	uint64_t start[THP_PEAK_SLOTS]; /* 1 + the start of the slice each slot holds; 0: none */
	uint64_t max[THP_PEAK_SLOTS];
};

/* Records @bytes at @now_ms in a window of @window_ms (slices of at least 1 s). */
void thp_peak_add(struct thp_peak *p, uint64_t window_ms, uint64_t now_ms, uint64_t bytes);
/* The largest value recorded within the window ending at @now_ms; 0: none. */
uint64_t thp_peak_max(const struct thp_peak *p, uint64_t now_ms);

#endif
