/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Machine-wide figures recorded next to the per-cgroup ones: zone sizes
 * and free blocks by order (/proc/zoneinfo, /proc/buddyinfo), the
 * global per-size THP statistics (hugepages-NkB/stats/ files) and, on TAO
 * kernels, the policy zones' and shattering's /proc/vmstat counters.
 */
#ifndef TAOD_MACHINE_STATS_H
#define TAOD_MACHINE_STATS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "config/config.h"

#define MACHINE_MAX_ZONES  32
#define MACHINE_MAX_ORDERS 16
#define MACHINE_MAX_MTHP   512

struct zone_stat {
	int node;
	char name[32];
	uint64_t present_pages, managed_pages, free_pages;
	int order;   /* zoneinfo's `order` line (TAO kernels); -1: none */
	int norders; /* free_blocks entries from buddyinfo; 0 when absent */
	uint64_t free_blocks[MACHINE_MAX_ORDERS];
};

struct mthp_stat {
	unsigned size_kb;
	char name[48];
	uint64_t value;
};

/* HVO keeps 1 of a 2 MiB THP's 8 vmemmap pages: 28 KiB saved per THP. */
#define HVO_SAVED_PER_THP (28ULL << 10)

/* The TAO vmstat counters (tao-kernel-abi.md 2a), each read only where present. */
enum tao_vmstat {
	TVM_PGALLOC_NOSPLIT,
	TVM_PGALLOC_NOMERGE,
	TVM_ALLOCSTALL_NOSPLIT,
	TVM_ALLOCSTALL_NOMERGE,
	TVM_PGSKIP_NOSPLIT,
	TVM_PGSKIP_NOMERGE,
	TVM_SHATTER,
	TVM_SHATTER_FAILED,
	TVM_SHATTER_DISCARDED,
	TVM_HVO,
	TVM_MAX,
};

struct machine_stats {
	unsigned tao_present; /* bit per enum tao_vmstat found in vmstat */
	uint64_t tao[TVM_MAX];
	size_t nzones;
	struct zone_stat zones[MACHINE_MAX_ZONES];
	size_t nmthp;
	struct mthp_stat mthp[MACHINE_MAX_MTHP];
};

/* Parsers of the kernel texts; odd lines are skipped, never fatal. */
int machine_parse_zoneinfo(const char *text, struct machine_stats *m);
int machine_parse_buddyinfo(const char *text, struct machine_stats *m);
int machine_parse_tao_vmstat(const char *text, struct machine_stats *m);
/* "thp_shatter_page", ...: the vmstat name; NULL out of range. */
const char *tao_vmstat_name(enum tao_vmstat i);
/* True when @m has counter @i. */
bool tao_vmstat_has(const struct machine_stats *m, enum tao_vmstat i);
/* Reads all three sources under the root prefix; missing ones stay empty. */
int machine_stats_read(const struct kernel_paths *k, struct machine_stats *m);

#endif
