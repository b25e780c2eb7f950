// SPDX-License-Identifier: GPL-2.0
/*
 * Free 2 MiB blocks: what a collapse needs to put a THP in. /proc/buddyinfo
 * lists each zone's free blocks by order; a block of order 9 or more holds
 * a THP. The DMA zone is left out: its lowmem reserve keeps it from user
 * memory.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "free_blocks.h"
#include "act/act_backend.h"
#include "account/machine_stats.h"
#include "common/rootfs.h"

#define BUDDYINFO_MAX (64 << 10)
#define THP_ORDER     9 /* THP_BYTES in 4 KiB pages: 2^9 */

static uint64_t thp_blocks_of(const struct zone_stat *z)
{
	uint64_t n = 0;

	for (int o = THP_ORDER; o < z->norders; o++)
		n += z->free_blocks[o] << (o - THP_ORDER);
	return n;
}

int free_thp_blocks(const struct kernel_paths *k, uint64_t *out)
{
	struct machine_stats *m = calloc(1, sizeof(*m));
	char *buf = malloc(BUDDYINFO_MAX);
	ssize_t got = buf ? rootfs_read(k->buddyinfo, buf, BUDDYINFO_MAX) : -ENOMEM;

	*out = 0;
	if (m && got > 0) {
		machine_parse_buddyinfo(buf, m);
		for (size_t i = 0; i < m->nzones; i++)
			if (strcmp(m->zones[i].name, "DMA"))
				*out += thp_blocks_of(&m->zones[i]);
	}
	free(buf);
	free(m);
	return !m ? -ENOMEM : got > 0 ? 0 : got < 0 ? (int)got : -ENODATA;
}
