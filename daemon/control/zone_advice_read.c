// SPDX-License-Identifier: GPL-2.0
/*
 * What the zone recommendation reads from the kernel: zone sizes and free
 * pages (zoneinfo, with the `order` line of the policy zones), the zones'
 * vmstat counters, the THP allocations by size, pageblock_order and the
 * boot's nosplit=/nomerge=. Missing files leave their fields zero.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "account/machine_stats.h"
#include "account/memstat.h"
#include "common/rootfs.h"
#include "observe/kernel_probe.h"
#include "zone_advice.h"

#define PAGE 4096ULL

static uint64_t vm(const char *text, const char *key)
{
	uint64_t v = 0;

	return kv_lookup_u64(text, key, &v) ? 0 : v;
}

static void read_use(const struct machine_stats *m, const char *zone, const char *zoneinfo,
		     const char *vmstat, const char *suffix, struct zone_use *u)
{
	char key[64];

	memset(u, 0, sizeof(*u));
	for (size_t i = 0; i < m->nzones; i++) {
		if (strcmp(m->zones[i].name, zone))
			continue;
		u->present = true;
		u->present_bytes += m->zones[i].present_pages * PAGE;
		u->free_bytes += m->zones[i].free_pages * PAGE;
	}
	u->order = (int)zoneinfo_zone_value(zoneinfo, zone, "order", false);
	snprintf(key, sizeof(key), "allocstall_%s", suffix);
	u->allocstall = vm(vmstat, key);
	snprintf(key, sizeof(key), "pgskip_%s", suffix);
	u->pgskip = vm(vmstat, key);
	snprintf(key, sizeof(key), "pgalloc_%s", suffix);
	u->pgalloc = vm(vmstat, key);
}

/* hugepages-<kB>/stats/anon_fault_alloc by order (4 KiB pages). */
static void read_order_mix(const struct machine_stats *m, struct zone_advice_in *in)
{
	for (size_t i = 0; i < m->nmthp; i++) {
		int order = __builtin_ctz(m->mthp[i].size_kb / 4 ? m->mthp[i].size_kb / 4 : 1);

		if (order < ZONE_ADVICE_ORDERS && !strcmp(m->mthp[i].name, "anon_fault_alloc"))
			in->order_allocs[order] += m->mthp[i].value;
	}
}

static int pageblock_order(const struct kernel_paths *k)
{
	char rel[PATH_MAX + 32], text[32];
	uint64_t size;

	snprintf(rel, sizeof(rel), "%s/hpage_pmd_size", k->thp_sysfs);
	if (rootfs_read(rel, text, sizeof(text)) <= 0 || (size = strtoull(text, NULL, 10)) < PAGE)
		return 9; /* x86-64 and arm64 with 4 KiB pages */
	return __builtin_ctzll(size / PAGE);
}

int zone_advice_read(const struct kernel_paths *k, struct zone_advice_in *in)
{
	struct machine_stats *m = calloc(1, sizeof(*m));
	char *zi = calloc(1, 1 << 18), *vs = calloc(1, 1 << 16), cmd[4096] = "";
	int r = m && zi && vs ? 0 : -ENOMEM;

	if (!r) {
		machine_stats_read(k, m);
		rootfs_read(k->zoneinfo, zi, (1 << 18) - 1);
		rootfs_read(k->vmstat, vs, (1 << 16) - 1);
		rootfs_read(k->cmdline, cmd, sizeof(cmd) - 1);
		for (size_t i = 0; i < m->nzones; i++)
			in->mem_bytes += m->zones[i].present_pages * PAGE;
		in->pageblock_order = pageblock_order(k);
		read_use(m, k->zone_nosplit, zi, vs, "nosplit", &in->nosplit);
		read_use(m, k->zone_nomerge, zi, vs, "nomerge", &in->nomerge);
		read_order_mix(m, in);
		zone_cmdline_parse(cmd, in->mem_bytes, &in->boot_nosplit, &in->boot_nomerge);
	}
	free(m);
	free(zi);
	free(vs);
	return r;
}
