// SPDX-License-Identifier: GPL-2.0
#include "kernel_probe.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>

/* A TAO kernel has the policy zones or the memcg shatter file (tao-kernel-abi.md). */
void kernel_probe(const struct taod_config *cfg, const struct cgroup_tree *tree,
		  struct kernel_info *out)
{
	const struct feature_probe *zones = &out->feat[TAO_BOOT_ZONES];
	const struct feature_probe *shatter = &out->feat[TAO_MEMCG_THP_SHATTER];
	struct utsname u;

	memset(out, 0, sizeof(*out));
	if (!uname(&u))
		snprintf(out->release, sizeof(out->release), "%s", u.release);
	kernel_probe_features(cfg, tree, out);
	if (cfg->tao != TAO_AUTO) {
		out->kind = cfg->tao == TAO_YES ? KERNEL_TAO : KERNEL_STOCK;
		snprintf(out->why, sizeof(out->why), "tao = %s in config",
			 tao_detect_name(cfg->tao));
		return;
	}
	if (zones->present || shatter->present) {
		out->kind = KERNEL_TAO;
		snprintf(out->why, sizeof(out->why), "%s",
			 zones->present ? zones->why : shatter->why);
		return;
	}
	out->kind = KERNEL_STOCK;
	if (zones->named) /* TAO code without a zone: it splits as stock does */
		snprintf(out->why, sizeof(out->why), "%s", zones->why);
	else
		snprintf(out->why, sizeof(out->why), "no %s/%s zone and no %s", cfg->k.zone_nosplit,
			 cfg->k.zone_nomerge, cfg->k.memcg_thp_shatter);
}

const char *kernel_kind_name(enum kernel_kind k)
{
	return k == KERNEL_TAO ? "tao" : "stock";
}
