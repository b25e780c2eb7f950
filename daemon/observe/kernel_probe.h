/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Which kernel taod runs on: stock, or one carrying the TAO patch set, and
 * which TAO features it has. Each feature is probed on its own file (see
 * ../docs and tao-kernel-abi.md 2a/2b); none is assumed from another.
 */
#ifndef TAOD_KERNEL_PROBE_H
#define TAOD_KERNEL_PROBE_H

#include <stdbool.h>

#include "cgroup_tree.h"
#include "config/config.h"

enum kernel_kind { KERNEL_STOCK, KERNEL_TAO };

/* The TAO features, one row of the probe table each. */
enum tao_feature {
	TAO_BOOT_ZONES,	       /* zoneinfo lists NoSplit or NoMerge with pages */
	TAO_HOTPLUG_ZONES,     /* an offline block's valid_zones lists a policy zone */
	TAO_MEMCG_THP_ZONES,   /* memory.thp_zones in taod's own cgroup */
	TAO_MEMCG_THP_SHATTER, /* memory.thp_shatter in taod's own cgroup */
	TAO_HVO_COUNTER,       /* vmstat counts thp_hvo_page */
	TAO_FEATURE_MAX,
};

struct feature_probe {
	bool present;
	bool named;	 /* the file names it, but it is not there to use (zones of 0 pages) */
	char probe[128]; /* the file it was probed on */
	char why[192];	 /* what that file said */
};

struct kernel_info {
	enum kernel_kind kind;
	char why[192];
	char release[128];
	struct feature_probe feat[TAO_FEATURE_MAX];
};

void kernel_probe(const struct taod_config *cfg, const struct cgroup_tree *tree,
		  struct kernel_info *out);
/* Fills every row of @out->feat from the files under the root prefix. */
void kernel_probe_features(const struct taod_config *cfg, const struct cgroup_tree *tree,
			   struct kernel_info *out);
const char *kernel_kind_name(enum kernel_kind k);
/* "boot_zones", "hotplug_zones", ...; "?" out of range. */
const char *tao_feature_name(enum tao_feature f);
/* True when @k has @f; a NULL @k (no probe ran, as in unit tests) has all. */
bool kernel_has(const struct kernel_info *k, enum tao_feature f);
/*
 * The value of @zone's @key line ("present", "order") in zoneinfo text:
 * summed over the nodes' sections if @sum, else the first's; -1 when no
 * section of @zone has the line.
 */
long long zoneinfo_zone_value(const char *text, const char *zone, const char *key, bool sum);
/* True when zoneinfo text lists a zone with this name ("Node 0, zone NoSplit"). */
bool zoneinfo_has_zone(const char *text, const char *zone);

#endif
