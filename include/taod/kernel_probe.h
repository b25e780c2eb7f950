/* SPDX-License-Identifier: GPL-2.0 */
/* Which kernel taod runs on: stock, or one carrying the TAO patch set. */
#ifndef TAOD_KERNEL_PROBE_H
#define TAOD_KERNEL_PROBE_H

#include <stdbool.h>

#include "taod/cgroup_tree.h"
#include "taod/config.h"

enum kernel_kind { KERNEL_STOCK, KERNEL_TAO };

struct kernel_info {
	enum kernel_kind kind;
	char why[192];
	char release[128];
};

void kernel_probe(const struct taod_config *cfg, const struct cgroup_tree *tree,
		  struct kernel_info *out);
const char *kernel_kind_name(enum kernel_kind k);
/* True when zoneinfo text lists a zone with this name ("Node 0, zone NoSplit"). */
bool zoneinfo_has_zone(const char *text, const char *zone);

#endif
