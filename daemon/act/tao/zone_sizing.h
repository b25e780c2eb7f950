/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Zone sizing on kernels that online memory blocks into the policy zones:
 * targets from the demand of guaranteed cgroups, and the moves.
 * Defined in zone_sizing.c.
 */
#ifndef TAOD_ACT_ZONE_SIZING_H
#define TAOD_ACT_ZONE_SIZING_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "act/act_backend.h"
#define ZONE_KEEP UINT64_MAX

struct zone_targets {
	uint64_t nosplit, nomerge; /* bytes, or ZONE_KEEP */
};

/* Targets from the THP demand of guaranteed cgroups, within bounds. */
void zone_plan(const struct act_settings *s, uint64_t demand, struct zone_targets *t);
/* Moves memory blocks until the zones reach @t (or busy blocks/floor stop it). */
void zone_resize(const struct act_ctx *c, const struct zone_targets *t, struct act_outcome *o);
/* Bytes of online memory blocks in @zone, and the block size (may be NULL). */
int zone_online_bytes(const struct act_ctx *c, const char *zone, uint64_t *out,
		      uint64_t *block_size);

#endif
