// SPDX-License-Identifier: GPL-2.0
#include "mthp_split.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "act/read/smaps.h"
#include "config/config.h"
#include "common/rootfs.h"
#include "account/size_held.h"

/* The split stat of each order from 2 below the PMD order; false when none exists. */
static bool read_splits(const struct kernel_paths *k, uint64_t out[TAOD_MAX_ORDER])
{
	bool any = false;

	memset(out, 0, sizeof(uint64_t) * TAOD_MAX_ORDER);
	for (int order = 2; order < TAOD_MAX_ORDER; order++) {
		char rel[PATH_MAX + 64], text[32];

		snprintf(rel, sizeof(rel), "%s/hugepages-%llukB/stats/split", k->thp_sysfs,
			 (unsigned long long)size_kb_of(order));
		if (rootfs_read(rel, text, sizeof(text)) <= 0)
			continue;
		out[order] = strtoull(text, NULL, 10);
		any = true;
	}
	return any;
}

bool mthp_split_begin(const struct kernel_paths *k, struct mthp_split_tally *t)
{
	memset(t, 0, sizeof(*t));
	t->counted = read_splits(k, t->before);
	return t->counted;
}

static uint64_t split_bytes(const struct mthp_split_tally *t)
{
	uint64_t b = 0;

	for (int order = 2; order < TAOD_MAX_ORDER; order++)
		b += t->split[order] * size_kb_of(order) * 1024;
	return b;
}

/* A mapping worth writing: an anonymous one (a private file mapping's
 * copied pages are base pages) with anonymous memory of at least the smallest size,
 * no PMD THP (those are the PMD passes' to split, or a `sizes = mthp`
 * policy's to leave alone), not MADV_NOHUGEPAGE. */
static bool may_hold_mthp(const struct vma_info *v)
{
	return v->anon_mapping && v->anon >= size_kb_of(2) * 1024 && !v->anon_huge &&
	       !v->no_hugepage;
}

int64_t mthp_split_mapping(const struct kernel_paths *k, const char *path, pid_t pid,
			   const struct vma_info *v, struct mthp_split_tally *t)
{
	uint64_t now[TAOD_MAX_ORDER];
	char cmd[96];
	int r;

	if (!t->counted || !may_hold_mthp(v))
		return (int64_t)split_bytes(t);
	snprintf(cmd, sizeof(cmd), "%d,0x%llx,0x%llx", (int)pid, (unsigned long long)v->start,
		 (unsigned long long)v->end);
	r = write_file(path, cmd);
	if (r == -EPERM || r == -EACCES || r == -ENOENT || r == -EROFS)
		return r;
	if (r)
		t->failed++, t->err = -r;
	else
		t->writes++;
	read_splits(k, now);
	for (int order = 2; order < TAOD_MAX_ORDER; order++)
		t->split[order] = now[order] > t->before[order] ? now[order] - t->before[order] : 0;
	return (int64_t)split_bytes(t);
}

void mthp_split_text(const struct mthp_split_tally *t, char *buf, size_t len)
{
	size_t used;

	buf[0] = 0;
	if (!t->writes && !t->failed)
		return;
	used = (size_t)snprintf(buf, len, "; below the PMD: %d mapping write(s)%s, split",
				t->writes, t->failed ? " (some failed)" : "");
	for (int order = 2; order < TAOD_MAX_ORDER && used < len; order++)
		if (t->split[order])
			used += (size_t)snprintf(buf + used, len - used, " %lluK %llu",
						 (unsigned long long)size_kb_of(order),
						 (unsigned long long)t->split[order]);
	if (used < len)
		snprintf(buf + used, len - used, "%s (kernel, machine-wide)",
			 split_bytes(t) ? "" : " none");
}
