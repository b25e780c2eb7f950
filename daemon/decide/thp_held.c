// SPDX-License-Identifier: GPL-2.0
/*
 * The peak of the THP memory tenants held over a window (thp_held.h):
 * taoctl zones never sizes the boot zones below it. It used to follow the
 * guarantees alone: on an idle TAO guest with no guarantee it shrank
 * 256M/512M zones to the 4M/40M they held, which at the next boot would
 * take THPs from every tenant that had them.
 */
#include <string.h>

#include "thp_held.h"

/* Slices of the window: at least 1 s, THP_PEAK_SLOTS of them. */
static uint64_t slot_ms(uint64_t window_ms)
{
	uint64_t s = window_ms / THP_PEAK_SLOTS;

	return s < 1000 ? 1000 : s;
}

void thp_peak_add(struct thp_peak *p, uint64_t window_ms, uint64_t now_ms, uint64_t bytes)
{
	uint64_t s = slot_ms(window_ms), start = now_ms / s * s + 1; /* + 1: 0 is "none" */
	size_t i = (size_t)(now_ms / s % THP_PEAK_SLOTS);

	if (p->slot_ms != s)
		memset(p, 0, sizeof(*p)); /* a new window: slices of another size */
	p->slot_ms = s;
	if (p->start[i] != start) {
		p->start[i] = start;
		p->max[i] = 0;
	}
	if (bytes > p->max[i])
		p->max[i] = bytes;
}

uint64_t thp_peak_max(const struct thp_peak *p, uint64_t now_ms)
{
	uint64_t m = 0, span = p->slot_ms * THP_PEAK_SLOTS;

	for (size_t i = 0; i < THP_PEAK_SLOTS; i++)
		if (p->start[i] && p->start[i] - 1 + span > now_ms && p->max[i] > m)
			m = p->max[i];
	return m;
}
