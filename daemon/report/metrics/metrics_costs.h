/* SPDX-License-Identifier: GPL-2.0 */
/* What actions cost and bought, per kind, in the metrics exposition (metrics.c). */
#ifndef TAOD_METRICS_COSTS_H
#define TAOD_METRICS_COSTS_H

#include <stdio.h>

#include "metrics.h"

/*
 * Writes the taod_action_* families from @in->costs (nothing without it)
 * and the near-zero flags of @in->benefit_flag. A kind gets series once
 * it has a measured action (costs) or a final follow-up (benefits).
 * Errors show in ferror(@f).
 */
void metrics_write_costs(FILE *f, const struct metrics_input *in);

#endif
