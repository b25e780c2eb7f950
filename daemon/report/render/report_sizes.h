/* SPDX-License-Identifier: GPL-2.0 */
/* The multi-size THP part of each report format (report_sizes.c). */
#ifndef TAOD_REPORT_SIZES_H
#define TAOD_REPORT_SIZES_H

#include <stdio.h>

#include "report/report.h"

struct json_object;

/* Folios broken (left partially mapped, split) per folio made (faulted,
 * collapsed), in percent; -1 with none made. */
double report_size_broken_pct(const struct report_size *s);
/* [{size_kb, each per-size event by its name (null where the database
 * predates it), broken_pct, mapped_bytes, coverage_pct}] of @c (the last
 * two null where not counted). */
struct json_object *report_sizes_json(const struct report_cgroup *c);
/* The table format's section, a line per cgroup and size; nothing when no
 * cgroup has a size counted. */
void report_sizes_table(FILE *f, const struct report *r);
/* The HTML per-cgroup view: a row per size with a broken/intact bar and a
 * coverage bar. */
void report_sizes_html(FILE *f, const struct report_cgroup *c);

#endif
