/* SPDX-License-Identifier: GPL-2.0 */
/* The multi-size THP series of the metrics exposition (metrics.c). */
#ifndef TAOD_METRICS_SIZES_H
#define TAOD_METRICS_SIZES_H

#include <stdio.h>

#include "account/cgroup_state.h"

/*
 * Writes family taod_cgroup_mthp_folios_total{cgroup, size_kb, event}:
 * per cgroup and folio size (orders 2 and up) with an event, the folios
 * faulted, left partially mapped and split. Returns nothing: errors show
 * in ferror(@f).
 */
void metrics_write_sizes(FILE *f, const struct cgroup_table *t);

#endif
