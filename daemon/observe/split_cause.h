/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Names of the causes of PMD splits (enum taod_split_cause, taod/thp_observe.h)
 * and the leading cause of a task's splits.
 */
#ifndef TAOD_SPLIT_CAUSE_H
#define TAOD_SPLIT_CAUSE_H

#include <linux/types.h>
#include <stdbool.h>

#include "taod/thp_observe.h"

/* The cause's name ("munmap"), or "unknown" for a value out of range. */
const char *split_cause_name(int cause);
/* The cause named @name, or -1. */
int split_cause_from_name(const char *name);
/* Whether @cause is a call by which a task returns or remaps its memory
 * (munmap, madvise, mprotect, mremap, brk): the splits an allocator makes;
 * false for faults, exits, migration, the kernel's threads, others. */
bool split_cause_returns_memory(int cause);
/* The cause with the most splits in @by_cause (the lowest on a tie), or -1
 * when no split is counted. */
int split_cause_top(const __u64 by_cause[TAOD_CAUSE_MAX]);

#endif
