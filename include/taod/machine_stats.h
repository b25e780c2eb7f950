/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Machine-wide figures recorded next to the per-cgroup ones: zone sizes
 * and free blocks by order (/proc/zoneinfo, /proc/buddyinfo) and the
 * global per-size THP statistics (hugepages-NkB/stats/ files).
 */
#ifndef TAOD_MACHINE_STATS_H
#define TAOD_MACHINE_STATS_H

#include <stddef.h>
#include <stdint.h>

#include "taod/config.h"

#define MACHINE_MAX_ZONES  32
#define MACHINE_MAX_ORDERS 16
#define MACHINE_MAX_MTHP   512

struct zone_stat {
	int node;
	char name[32];
	uint64_t present_pages, managed_pages, free_pages;
	int norders; /* free_blocks entries from buddyinfo; 0 when absent */
	uint64_t free_blocks[MACHINE_MAX_ORDERS];
};

struct mthp_stat {
	unsigned size_kb;
	char name[48];
	uint64_t value;
};

struct machine_stats {
	size_t nzones;
	struct zone_stat zones[MACHINE_MAX_ZONES];
	size_t nmthp;
	struct mthp_stat mthp[MACHINE_MAX_MTHP];
};

/* Parsers of the kernel texts; odd lines are skipped, never fatal. */
int machine_parse_zoneinfo(const char *text, struct machine_stats *m);
int machine_parse_buddyinfo(const char *text, struct machine_stats *m);
/* Reads all three sources under the root prefix; missing ones stay empty. */
int machine_stats_read(const struct kernel_paths *k, struct machine_stats *m);

#endif
