/* SPDX-License-Identifier: GPL-2.0 */
/* taoctl cgroups --sizes: the multi-size THP figures of each cgroup. */
#ifndef TAOCTL_CMD_SIZES_H
#define TAOCTL_CMD_SIZES_H

#include <stdbool.h>

struct json_object;

/*
 * Prints the `sizes` of each row of @list (the cgroups reply): one line per
 * cgroup and folio size, or with @json a list of {path, id, sizes}.
 */
void print_cgroup_sizes(struct json_object *list, bool json);

#endif
