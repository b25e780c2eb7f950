// SPDX-License-Identifier: GPL-2.0
#include "machine_stats.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/parse.h"
#include "common/rootfs.h"

#define ZONEINFO_MAX (1 << 20)

static struct zone_stat *zone_find(struct machine_stats *m, int node, const char *name, bool add)
{
	for (size_t i = 0; i < m->nzones; i++)
		if (m->zones[i].node == node && !strcmp(m->zones[i].name, name))
			return &m->zones[i];
	if (!add || m->nzones == MACHINE_MAX_ZONES)
		return NULL;
	memset(&m->zones[m->nzones], 0, sizeof(m->zones[0]));
	m->zones[m->nzones].node = node;
	m->zones[m->nzones].order = -1;
	snprintf(m->zones[m->nzones].name, sizeof(m->zones[0].name), "%s", name);
	return &m->zones[m->nzones++];
}

/* "Node 0, zone   Normal ..." -> node, zone name, and where the rest starts. */
static int zone_header(const char *line, int *node, char name[32], int *consumed)
{
	return sscanf(line, "Node %d, zone %31s%n", node, name, consumed) == 2 ? 0 : -EINVAL;
}

/*
 * Copies the line at @text into @buf (cut at @len - 1 bytes) and returns
 * the next line, or NULL at the end. sscanf() measures its whole input
 * string, so scanning lines in place was quadratic in the file size.
 */
static const char *take_line(const char *text, char *buf, size_t len)
{
	const char *nl = strchr(text, '\n');
	size_t n = nl ? (size_t)(nl - text) : strlen(text);

	snprintf(buf, len, "%.*s", (int)(n < len ? n : len - 1), text);
	return nl ? nl + 1 : NULL;
}

/* Kernel lines are short; a longer one is cut, never read past. */
#define LINE_MAX_LEN 512

int machine_parse_zoneinfo(const char *text, struct machine_stats *m)
{
	struct zone_stat *z = NULL;
	char line[LINE_MAX_LEN];

	for (const char *p = text; p && *p;) {
		char key[32], name[32];
		unsigned long long v;
		int node, used;

		p = take_line(p, line, sizeof(line));
		if (!zone_header(line, &node, name, &used))
			z = zone_find(m, node, name, true);
		else if (z && sscanf(line, " pages free %llu", &v) == 1)
			z->free_pages = v;
		else if (z && sscanf(line, " %31s %llu", key, &v) == 2) {
			if (!strcmp(key, "present"))
				z->present_pages = v;
			else if (!strcmp(key, "managed"))
				z->managed_pages = v;
			else if (!strcmp(key, "order") && v < MACHINE_MAX_ORDERS)
				z->order = (int)v;
		}
	}
	return 0;
}

static void parse_free_blocks(struct zone_stat *z, const char *p)
{
	unsigned long long v;
	int n;

	z->norders = 0;
	while (z->norders < MACHINE_MAX_ORDERS && sscanf(p, "%llu%n", &v, &n) == 1) {
		z->free_blocks[z->norders++] = v;
		p += n;
	}
}

int machine_parse_buddyinfo(const char *text, struct machine_stats *m)
{
	char line[LINE_MAX_LEN];

	for (const char *p = text; p && *p;) {
		char name[32];
		int node, used;
		struct zone_stat *z;

		p = take_line(p, line, sizeof(line));
		if (!zone_header(line, &node, name, &used) && (z = zone_find(m, node, name, true)))
			parse_free_blocks(z, line + used);
	}
	return 0;
}

static void read_mthp_size(struct machine_stats *m, const char *dir, unsigned size_kb)
{
	char path[PATH_MAX], buf[64];
	struct dirent *de;
	DIR *d;

	snprintf(path, sizeof(path), "%s/stats", dir);
	d = opendir(path);
	if (!d)
		return;
	while ((de = readdir(d)) && m->nmthp < MACHINE_MAX_MTHP) {
		struct mthp_stat *s = &m->mthp[m->nmthp];
		char file[PATH_MAX];
		uint64_t v;

		if (de->d_name[0] == '.')
			continue;
		snprintf(file, sizeof(file), "%s/%s", path, de->d_name);
		if (read_file(file, buf, sizeof(buf)) <= 0)
			continue;
		buf[strcspn(buf, "\n")] = '\0';
		if (parse_u64(buf, &v))
			continue;
		s->size_kb = size_kb;
		snprintf(s->name, sizeof(s->name), "%s", de->d_name);
		s->value = v;
		m->nmthp++;
	}
	closedir(d);
}

static int compare_mthp(const void *a, const void *b)
{
	const struct mthp_stat *x = a, *y = b;

	if (x->size_kb != y->size_kb)
		return x->size_kb < y->size_kb ? -1 : 1;
	return strcmp(x->name, y->name);
}

static void read_mthp(const struct kernel_paths *k, struct machine_stats *m)
{
	char base[PATH_MAX];
	struct dirent *de;
	DIR *d;

	if (rootfs_path(base, sizeof(base), k->thp_sysfs) || !(d = opendir(base)))
		return;
	while ((de = readdir(d))) {
		char dir[PATH_MAX], tail[8];
		unsigned kb;

		if (sscanf(de->d_name, "hugepages-%ukB%7s", &kb, tail) != 1)
			continue;
		snprintf(dir, sizeof(dir), "%s/%s", base, de->d_name);
		read_mthp_size(m, dir, kb);
	}
	closedir(d);
	qsort(m->mthp, m->nmthp, sizeof(m->mthp[0]), compare_mthp);
}

int machine_stats_read(const struct kernel_paths *k, struct machine_stats *m)
{
	char *buf = malloc(ZONEINFO_MAX);

	memset(m, 0, sizeof(*m));
	if (!buf)
		return -ENOMEM;
	if (rootfs_read(k->zoneinfo, buf, ZONEINFO_MAX) > 0)
		machine_parse_zoneinfo(buf, m);
	if (rootfs_read(k->buddyinfo, buf, ZONEINFO_MAX) > 0)
		machine_parse_buddyinfo(buf, m);
	if (rootfs_read(k->vmstat, buf, ZONEINFO_MAX) > 0)
		machine_parse_tao_vmstat(buf, m);
	free(buf);
	read_mthp(k, m);
	return 0;
}
