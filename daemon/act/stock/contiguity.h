/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Free 2 MiB blocks back after a stock shatter.
 * Defined in contiguity.c.
 */
#ifndef TAOD_ACT_CONTIGUITY_H
#define TAOD_ACT_CONTIGUITY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "act/act_backend.h"
#include "taod/action_cost.h"

/*
 * Drains the per-CPU free lists, compacts memory and drains again, so the
 * subpages a split freed merge into free 2 MiB blocks. Machine-wide writes;
 * says what it did in @note. Their times go to @cost's compaction and
 * drain phases (@cost may be NULL). 0, or the first -errno.
 */
int contiguity_restore(const struct kernel_paths *k, struct action_cost *cost, char *note,
		       size_t len);

/*
 * After a shatter that split @split_bytes: contiguity_restore() when
 * compact_after_shatter is on, something was split, the machine is under
 * contiguity pressure and the last compaction is compact_interval old
 * (c->compact NULL: no gate). @note says what was done or why not ("" when
 * compact_after_shatter is off). 0, or contiguity_restore()'s -errno.
 */
int contiguity_after_shatter(const struct act_ctx *c, uint64_t split_bytes, char *note, size_t len);

#endif
