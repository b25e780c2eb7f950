/* SPDX-License-Identifier: GPL-2.0 */
/*
 * "actions: cost and benefit" in each report format, per policy and per
 * tenant (report.h's report_costs). Nothing at all when the window has no
 * costed action: a report of an older history reads as it did.
 */
#ifndef TAOD_REPORT_COSTS_OUT_H
#define TAOD_REPORT_COSTS_OUT_H

#include <stdio.h>

#include "report/report.h"

struct json_object;

/* Whether the window has a costed action to show. */
bool report_has_costs(const struct report *r);
/* The table's lines: a heading, then one per policy and kind, one per tenant and kind. */
void report_costs_table(FILE *f, const struct report *r);
/* {"by_policy": [...], "by_tenant": [...]}, each group's figures. */
struct json_object *report_costs_json(const struct report *r);
/* An HTML section with a table per grouping. */
void report_costs_html(FILE *f, const struct report *r);
/* CSV: a line per grouping, name and kind (with --costs). */
int report_write_costs_csv(FILE *f, const struct report *r);

#endif
