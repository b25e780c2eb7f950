/* SPDX-License-Identifier: GPL-2.0 */
/* The multi-size THP series of the metrics exposition (metrics.c). */
#ifndef TAOD_METRICS_SIZES_H
#define TAOD_METRICS_SIZES_H

#include <stdio.h>

#include "account/cgroup_state.h"

/*
 * Writes family taod_cgroup_mthp_folios_total{cgroup, size_kb, event}:
 * per cgroup and folio size (orders 2 and up) with an event, the folios
 * faulted, left partially mapped and split; and the gauges
 * taod_cgroup_mthp_mapped_bytes{cgroup, size_kb} (bytes held in folios of
 * that size) and taod_cgroup_mthp_coverage_ratio{cgroup, size_kb} (their
 * share of anon memory, where memory.stat shows some). Returns nothing: errors show
 * in ferror(@f).
 */
void metrics_write_sizes(FILE *f, const struct cgroup_table *t);

#endif
