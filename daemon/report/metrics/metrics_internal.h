/* SPDX-License-Identifier: GPL-2.0 */
/* What the metrics writer's files share. */
#ifndef TAOD_METRICS_INTERNAL_H
#define TAOD_METRICS_INTERNAL_H

#include <stdio.h>

#include "metrics.h"

/* A family's HELP and TYPE lines; its samples follow them together. */
void metrics_family(FILE *f, const char *name, const char *type, const char *help);
/* The sinks' health, actions by kind and result, the judged cgroups (metrics_health.c). */
void metrics_write_health(FILE *f, const struct metrics_input *in);

#endif
