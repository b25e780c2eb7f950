/* SPDX-License-Identifier: GPL-2.0 */
/* The WORKLOAD column of taoctl's tables, from a reply's unit/container/pod. */
#ifndef TAOCTL_WORKLOAD_COLUMN_H
#define TAOCTL_WORKLOAD_COLUMN_H

#include <stddef.h>

struct json_object;

/*
 * workload_name_label() of @row's "unit", "container" and "pod" (null or
 * absent: none) in @buf; "-" when @row names none. Returns @buf.
 */
const char *workload_column(struct json_object *row, char *buf, size_t len);

#endif
