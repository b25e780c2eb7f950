// SPDX-License-Identifier: GPL-2.0
/*
 * The TAO feature table: one probe per feature, each on its own file, so a
 * kernel with boot-sized zones and no memcg files (the public TAO code) is
 * told apart from the extended interface (memcg thp_zones/thp_shatter,
 * hotplug into the zones). Every row records the file and what it said.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/cgroup_dir.h"
#include "kernel_probe.h"
#include "common/rootfs.h"

static void row(struct feature_probe *f, bool present, const char *probe, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

static void row(struct feature_probe *f, bool present, const char *probe, const char *fmt, ...)
{
	va_list ap;

	f->present = present;
	snprintf(f->probe, sizeof(f->probe), "%s", probe);
	va_start(ap, fmt);
	vsnprintf(f->why, sizeof(f->why), fmt, ap);
	va_end(ap);
}

/*
 * The TAO kernel lists NoSplit and NoMerge in zoneinfo whether or not it
 * made them: with no nosplit=/nomerge=, or with values it refused (the
 * nomerge order not above the nosplit order drops both), they have 0
 * pages. Named but empty is no zone: a shatter there is a plain split.
 */
static void probe_boot_zones(const struct kernel_paths *k, struct feature_probe *f)
{
	static char text[1 << 18];
	long long ns, nm;
	bool named;

	if (rootfs_read(k->zoneinfo, text, sizeof(text)) <= 0) {
		row(f, false, k->zoneinfo, "%s unreadable", k->zoneinfo);
		return;
	}
	named =
	    zoneinfo_has_zone(text, k->zone_nosplit) || zoneinfo_has_zone(text, k->zone_nomerge);
	ns = zoneinfo_zone_value(text, k->zone_nosplit, "present", true);
	nm = zoneinfo_zone_value(text, k->zone_nomerge, "present", true);
	if (ns > 0 || nm > 0) {
		row(f, true, k->zoneinfo, "%s lists zone %s%s%s", k->zoneinfo,
		    ns > 0 ? k->zone_nosplit : "", ns > 0 && nm > 0 ? " and " : "",
		    nm > 0 ? k->zone_nomerge : "");
	} else if (named) {
		row(f, false, k->zoneinfo,
		    "%s lists %s and %s with 0 pages: the kernel made no policy zone "
		    "(nosplit=/nomerge= absent or refused)",
		    k->zoneinfo, k->zone_nosplit, k->zone_nomerge);
		f->named = true;
	} else
		row(f, false, k->zoneinfo, "%s lists neither %s nor %s", k->zoneinfo,
		    k->zone_nosplit, k->zone_nomerge);
}

static int block_dir(const struct dirent *d)
{
	return !strncmp(d->d_name, "memory", 6) && d->d_name[6] >= '0' && d->d_name[6] <= '9';
}

/* An offline block's valid_zones names the zones it may be onlined into. */
static bool offline_block_lists(const char *dir, const char *name, const struct kernel_paths *k)
{
	char path[PATH_MAX + 300], state[64], zones[256];

	snprintf(path, sizeof(path), "%s/%s/state", dir, name);
	if (read_file(path, state, sizeof(state)) < 0 || strncmp(state, "offline", 7))
		return false;
	snprintf(path, sizeof(path), "%s/%s/valid_zones", dir, name);
	if (read_file(path, zones, sizeof(zones)) < 0)
		return false;
	zones[strcspn(zones, "\n")] = '\0';
	return strstr(zones, k->zone_nosplit) || strstr(zones, k->zone_nomerge);
}

static void probe_hotplug(const struct kernel_paths *k, struct feature_probe *f)
{
	char dir[PATH_MAX], probe[PATH_MAX + 32];
	struct dirent **names;
	int n, found = -1;

	snprintf(probe, sizeof(probe), "%s/memory*/valid_zones", k->memory_blocks);
	if (rootfs_path(dir, sizeof(dir), k->memory_blocks) ||
	    (n = scandir(dir, &names, block_dir, alphasort)) < 0) {
		row(f, false, probe, "%s unreadable", k->memory_blocks);
		return;
	}
	for (int i = 0; i < n; i++) {
		if (found < 0 && offline_block_lists(dir, names[i]->d_name, k))
			found = i;
		if (found != i)
			free(names[i]);
	}
	if (found >= 0) {
		row(f, true, probe, "offline %s/%s may be onlined into a policy zone",
		    k->memory_blocks, names[found]->d_name);
		free(names[found]);
	} else {
		row(f, false, probe, "no offline block lists %s or %s in valid_zones",
		    k->zone_nosplit, k->zone_nomerge);
	}
	free(names);
}

/* The root has no memory.* files on v2; the daemon's own cgroup does. */
static void probe_memcg_file(const struct cgroup_tree *tree, const char *file,
			     struct feature_probe *f)
{
	char *shown;

	if (!tree || tree->self_unknown) {
		row(f, false, file, "no memory cgroup to probe %s in", file);
		return;
	}
	shown = cgroup_file_shown(tree, tree->self, file);
	if (cgroup_file_exists(tree, tree->self, file))
		row(f, true, file, "%s exists", shown ? shown : file);
	else
		row(f, false, file, "%s absent", shown ? shown : file);
	free(shown);
}

static void probe_hvo(const struct kernel_paths *k, struct feature_probe *f)
{
	static char text[1 << 16];
	const char *p;

	if (rootfs_read(k->vmstat, text, sizeof(text)) <= 0) {
		row(f, false, k->vmstat, "%s unreadable", k->vmstat);
		return;
	}
	p = strstr(text, "thp_hvo_page ");
	if (p && (p == text || p[-1] == '\n'))
		row(f, true, k->vmstat, "%s counts thp_hvo_page", k->vmstat);
	else
		row(f, false, k->vmstat, "%s has no thp_hvo_page", k->vmstat);
}

void kernel_probe_features(const struct taod_config *cfg, const struct cgroup_tree *tree,
			   struct kernel_info *out)
{
	probe_boot_zones(&cfg->k, &out->feat[TAO_BOOT_ZONES]);
	probe_hotplug(&cfg->k, &out->feat[TAO_HOTPLUG_ZONES]);
	probe_memcg_file(tree, cfg->k.memcg_thp_zones, &out->feat[TAO_MEMCG_THP_ZONES]);
	probe_memcg_file(tree, cfg->k.memcg_thp_shatter, &out->feat[TAO_MEMCG_THP_SHATTER]);
	probe_hvo(&cfg->k, &out->feat[TAO_HVO_COUNTER]);
}

const char *tao_feature_name(enum tao_feature f)
{
	static const char *const names[TAO_FEATURE_MAX] = {
	    [TAO_BOOT_ZONES] = "boot_zones",
	    [TAO_HOTPLUG_ZONES] = "hotplug_zones",
	    [TAO_MEMCG_THP_ZONES] = "memcg_thp_zones",
	    [TAO_MEMCG_THP_SHATTER] = "memcg_thp_shatter",
	    [TAO_HVO_COUNTER] = "hvo_counter",
	};

	return (unsigned)f < TAO_FEATURE_MAX ? names[f] : "?";
}

bool kernel_has(const struct kernel_info *k, enum tao_feature f)
{
	return !k || ((unsigned)f < TAO_FEATURE_MAX && k->feat[f].present);
}

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

long long zoneinfo_zone_value(const char *text, const char *zone, const char *key, bool sum)
{
	size_t zlen = strlen(zone), klen = strlen(key);
	long long v = -1;

	for (const char *p = strstr(text, "zone"); p; p = strstr(p + 4, "zone")) {
		const char *name = p + 4 + strspn(p + 4, " "), *next, *o;

		if (strncmp(name, zone, zlen) || (name[zlen] != '\n' && name[zlen] != ' '))
			continue;
		next = strstr(name, "\nNode ");
		for (o = strchr(name, '\n'); o && (!next || o < next); o = strchr(o + 1, '\n')) {
			const char *w = o + 1 + strspn(o + 1, " \t");

			if (strncmp(w, key, klen) || w[klen] != ' ')
				continue;
			v = (v < 0 ? 0 : v) + strtoll(w + klen, NULL, 10);
			if (!sum)
				return v;
			break;
		}
	}
	return v;
}
