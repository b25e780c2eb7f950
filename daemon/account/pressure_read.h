/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Reads the contiguity-pressure inputs (common/pressure_inputs.h) from the
 * kernel files under the configured root: /proc/buddyinfo, /proc/vmstat,
 * the per-size THP stats and memory PSI. Every number has a range; a file
 * that does not parse is named in the error text, its inputs are left
 * absent and the others are still read. Defined in pressure_read.c.
 */
#ifndef TAOD_PRESSURE_READ_H
#define TAOD_PRESSURE_READ_H

#include <stddef.h>
#include <stdint.h>

#include "config/config.h"
#include "contiguity_pressure.h"
#include "machine_stats.h"

/* A count above this in any kernel file is taken for garbage, not a count. */
#define PRESSURE_COUNT_MAX (1ULL << 62)

/*
 * /proc/vmstat text: sets the counters of the rate inputs it has. 0, or
 * -EINVAL for a known counter that is no count (@err names the line; the
 * rest is still read).
 */
int pressure_parse_vmstat(const char *text, struct pressure_reading *r, char *err, size_t len);
/* /proc/pressure/memory text: PSI some/full avg10, each 0..100. 0, -EINVAL
 * (a line that does not parse) or -ERANGE (out of range); @err says which. */
int pressure_parse_psi(const char *text, struct pressure_reading *r, char *err, size_t len);
/*
 * Free blocks of @m (buddyinfo parsed) at @pmd_order and up, in PMD units,
 * machine-wide (DMA left out) and per place: each node, and each TAO zone
 * named @nosplit or @nomerge as "nodeN/NAME"; at @mthp_order and up too
 * when it is above 0. 0, or -ENODATA (no zone has free block counts).
 */
int pressure_free_blocks(const struct machine_stats *m, int pmd_order, int mthp_order,
			 const char *nosplit, const char *nomerge, struct pressure_reading *r);
/* Everything under @k's root at @now_ms. 0, or the first error (its text in @err). */
int pressure_read(const struct kernel_paths *k, uint64_t now_ms, struct pressure_reading *r,
		  char *err, size_t len);

#endif
