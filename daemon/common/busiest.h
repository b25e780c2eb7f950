/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Which cgroups a listing for people shows by default (taoctl report and
 * cgroups without --all): those that need attention, then the busiest few.
 * A host's thousand idle cgroups would bury the dozen that matter.
 */
#ifndef TAOD_BUSIEST_H
#define TAOD_BUSIEST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* How many of the unflagged busy cgroups are shown. */
#define BUSIEST_SHOWN 20

/*
 * Sets show[i] for each of the @n rows that matter: every flagged one, and
 * of the others the @top with the highest busy[i] > 0 (ties: the lower
 * index). Returns how many are shown; -1 without memory (show untouched).
 */
long busiest_pick(const bool *flagged, const uint64_t *busy, size_t n, size_t top, bool *show);

#endif
