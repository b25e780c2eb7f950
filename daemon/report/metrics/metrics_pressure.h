/* SPDX-License-Identifier: GPL-2.0 */
/* The contiguity-pressure series of the metrics exposition (metrics.c). */
#ifndef TAOD_METRICS_PRESSURE_H
#define TAOD_METRICS_PRESSURE_H

#include <stdio.h>

#include "account/contiguity_pressure.h"

/*
 * Writes taod_contiguity_pressure (0 none, 1 some, 2 full), its per-place
 * taod_contiguity_pressure_place{place}, and each input the kernel gave
 * under its own family (the input table's metric name). Errors show in
 * ferror(@f).
 */
void metrics_write_pressure(FILE *f, const struct pressure_state *s);

#endif
