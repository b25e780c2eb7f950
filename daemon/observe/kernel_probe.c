// SPDX-License-Identifier: GPL-2.0
#include "taod/kernel_probe.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "taod/cgroup_dir.h"
#include "taod/rootfs.h"

bool zoneinfo_has_zone(const char *text, const char *zone)
{
	size_t zlen = strlen(zone);

	for (const char *p = strstr(text, "zone"); p; p = strstr(p + 4, "zone")) {
		const char *name = p + 4;

		while (*name == ' ')
			name++;
		if (!strncmp(name, zone, zlen) &&
		    (name[zlen] == '\n' || name[zlen] == ' ' || !name[zlen]))
			return true;
	}
	return false;
}

static bool zones_present(const struct taod_config *cfg, char *which, size_t len)
{
	static char text[1 << 18];

	if (rootfs_read(cfg->k.zoneinfo, text, sizeof(text)) <= 0)
		return false;
	if (zoneinfo_has_zone(text, cfg->k.zone_nosplit)) {
		snprintf(which, len, "%s lists zone %s", cfg->k.zoneinfo, cfg->k.zone_nosplit);
		return true;
	}
	if (zoneinfo_has_zone(text, cfg->k.zone_nomerge)) {
		snprintf(which, len, "%s lists zone %s", cfg->k.zoneinfo, cfg->k.zone_nomerge);
		return true;
	}
	return false;
}

static bool shatter_present(const struct taod_config *cfg, const struct cgroup_tree *tree,
			    char *which, size_t len)
{
	char *path;

	/* The root has no memory.* files on v2; the daemon's own cgroup does. */
	if (!cgroup_file_exists(tree, tree->self, cfg->k.memcg_thp_shatter))
		return false;
	path = cgroup_file_shown(tree, tree->self, cfg->k.memcg_thp_shatter);
	snprintf(which, len, "%s exists", path ? path : cfg->k.memcg_thp_shatter);
	free(path);
	return true;
}

void kernel_probe(const struct taod_config *cfg, const struct cgroup_tree *tree,
		  struct kernel_info *out)
{
	struct utsname u;

	memset(out, 0, sizeof(*out));
	if (!uname(&u))
		snprintf(out->release, sizeof(out->release), "%s", u.release);
	if (cfg->tao != TAO_AUTO) {
		out->kind = cfg->tao == TAO_YES ? KERNEL_TAO : KERNEL_STOCK;
		snprintf(out->why, sizeof(out->why), "tao = %s in config",
			 tao_detect_name(cfg->tao));
		return;
	}
	if (zones_present(cfg, out->why, sizeof(out->why)) ||
	    shatter_present(cfg, tree, out->why, sizeof(out->why))) {
		out->kind = KERNEL_TAO;
		return;
	}
	out->kind = KERNEL_STOCK;
	snprintf(out->why, sizeof(out->why), "no %s/%s zone and no %s", cfg->k.zone_nosplit,
		 cfg->k.zone_nomerge, cfg->k.memcg_thp_shatter);
}

const char *kernel_kind_name(enum kernel_kind k)
{
	return k == KERNEL_TAO ? "tao" : "stock";
}
