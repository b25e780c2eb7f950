/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The inputs of the contiguity-pressure signal, described once (as
 * bpftune describes its tunables): the state machine
 * (account/contiguity_pressure.c), the reader (account/pressure_read.c),
 * the [pressure] keys of taod.conf (NAME_some, NAME_full), the status
 * reply and the metrics all come from this table.
 *
 * A row: ID, its name, where the kernel counts it, whether a low value is
 * the bad one (free blocks) rather than a high one (rates, PSI), the
 * built-in thresholds that enter "some" and "full" (0: the input never
 * enters that level), the unit of the value, its metric and HELP. Rates
 * are events per second over the last few seconds; PSI is the avg10
 * percentage. PSI enters no level by itself unless configured: it counts a
 * cgroup's stalls at its own limit too (a 16 MiB cgroup re-reading a file
 * drove machine-wide PSI full to 36%), which is no lack of huge blocks. A state is left only when
 * no input is past half (for free blocks: below twice) the threshold that entered it, for
 * [pressure] hold.
 */
#ifndef TAOD_PRESSURE_INPUTS_H
#define TAOD_PRESSURE_INPUTS_H

#include <stdbool.h>
#include <stdint.h>

#define TAOD_PRESSURE_INPUTS(X)                                                                    \
	X(FREE_PMD_BLOCKS, "free_pmd_blocks", "/proc/buddyinfo orders >= PMD (not DMA)", true, 64, \
	  8, "blocks", "taod_pressure_free_pmd_blocks",                                            \
	  "Free blocks of the PMD order and above, in PMD-size units.")                            \
	X(FREE_MTHP_BLOCKS, "free_mthp_blocks",                                                    \
	  "/proc/buddyinfo at the smallest enabled mTHP order", true, 256, 32, "blocks",           \
	  "taod_pressure_free_mthp_blocks",                                                        \
	  "Free blocks at the smallest enabled mTHP order and above, in its units.")               \
	X(THP_FAULT_FALLBACK, "thp_fault_fallback",                                                \
	  "/proc/vmstat thp_fault_fallback - thp_fault_fallback_charge", false, 20, 200, "/s",     \
	  "taod_pressure_thp_fault_fallback_rate",                                                 \
	  "PMD THP faults that fell back for want of a free block (not a cgroup's limit), per "    \
	  "second.")                                                                               \
	X(MTHP_FAULT_FALLBACK, "mthp_fault_fallback",                                              \
	  "hugepages-*/stats/anon_fault_fallback - _charge (below PMD)", false, 50, 500, "/s",     \
	  "taod_pressure_mthp_fault_fallback_rate",                                                \
	  "mTHP faults below the PMD size that fell back for want of a block, per second.")        \
	X(COLLAPSE_FAILED, "collapse_alloc_failed", "/proc/vmstat thp_collapse_alloc_failed",      \
	  false, 1, 10, "/s", "taod_pressure_collapse_alloc_failed_rate",                          \
	  "khugepaged collapses that found no THP to allocate, per second.")                       \
	X(COMPACT_STALL, "compact_stall", "/proc/vmstat compact_stall", false, 5, 50, "/s",        \
	  "taod_pressure_compact_stall_rate", "Direct compaction stalls, per second.")             \
	X(COMPACT_FAIL, "compact_fail", "/proc/vmstat compact_fail", false, 5, 50, "/s",           \
	  "taod_pressure_compact_fail_rate", "Direct compactions that failed, per second.")        \
	X(ALLOCSTALL, "allocstall", "/proc/vmstat allocstall_* (but TAO's)", false, 5, 50, "/s",   \
	  "taod_pressure_allocstall_rate", "Direct reclaim stalls, per second.")                   \
	X(TAO_ALLOCSTALL, "tao_allocstall", "/proc/vmstat allocstall_nosplit, _nomerge", false, 5, \
	  50, "/s", "taod_pressure_tao_allocstall_rate",                                           \
	  "Direct reclaim stalls in the TAO policy zones, per second.")                            \
	X(TAO_PGSKIP, "tao_pgskip", "/proc/vmstat pgskip_nosplit, _nomerge", false, 1000, 10000,   \
	  "/s", "taod_pressure_tao_pgskip_rate",                                                   \
	  "Pages reclaim skipped in the TAO policy zones, per second.")                            \
	X(PSI_SOME, "psi_some", "/proc/pressure/memory some avg10", false, 0, 0, "%",              \
	  "taod_pressure_psi_some_avg10", "Memory PSI some, avg10, percent.")                      \
	X(PSI_FULL, "psi_full", "/proc/pressure/memory full avg10", false, 0, 0, "%",              \
	  "taod_pressure_psi_full_avg10", "Memory PSI full, avg10, percent.")

enum pressure_input {
#define X(id, ...) PIN_##id,
	TAOD_PRESSURE_INPUTS(X)
#undef X
	    PIN_MAX,
};

enum pressure_level { PRESSURE_NONE, PRESSURE_SOME, PRESSURE_FULL };

struct pressure_input_row {
	const char *name;
	const char *source;
	bool low_bad;	     /* low values are pressure (free blocks) */
	uint64_t some, full; /* built-in thresholds; 0: never enters the level */
	const char *unit;
	const char *metric;
	const char *help;
};

/* The row of @i; NULL out of range. */
const struct pressure_input_row *pressure_input_row(enum pressure_input i);
/* "none", "some", "full"; "?" out of range. */
const char *pressure_level_name(enum pressure_level l);

#endif
