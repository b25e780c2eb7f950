/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Shatter where the kernel has no memory.thp_shatter.
 * Defined in split_shatter.c.
 */
#ifndef TAOD_ACT_SPLIT_SHATTER_H
#define TAOD_ACT_SPLIT_SHATTER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "act/act_backend.h"

/*
 * Splits the offender's THPs (thp_split_offender) and records the vmstat
 * deltas around it in @o->shatter: the kernel shatters the folios that
 * live in a policy zone. Compacts afterwards (compact_after_shatter) only
 * where some THP was split rather than shattered.
 */
void tao_split_shatter(const struct act_ctx *c, const struct action_request *req, uint64_t budget,
		       struct act_outcome *o);

#endif
