// SPDX-License-Identifier: GPL-2.0
/*
 * The TAO counters of /proc/vmstat (machine_stats.h): the policy zones'
 * allocations, stalls and skips, and shattering's outcomes. A stock kernel
 * has none of them; HVO's counter is assumed beyond the public code, so
 * each is recorded as present or not, never as a zero it did not show.
 */
#include <string.h>

#include "machine_stats.h"
#include "memstat.h"

static const char *const names[TVM_MAX] = {
    [TVM_PGALLOC_NOSPLIT] = "pgalloc_nosplit",
    [TVM_PGALLOC_NOMERGE] = "pgalloc_nomerge",
    [TVM_ALLOCSTALL_NOSPLIT] = "allocstall_nosplit",
    [TVM_ALLOCSTALL_NOMERGE] = "allocstall_nomerge",
    [TVM_PGSKIP_NOSPLIT] = "pgskip_nosplit",
    [TVM_PGSKIP_NOMERGE] = "pgskip_nomerge",
    [TVM_SHATTER] = "thp_shatter_page",
    [TVM_SHATTER_FAILED] = "thp_shatter_page_failed",
    [TVM_SHATTER_DISCARDED] = "thp_shatter_page_discarded",
    [TVM_HVO] = "thp_hvo_page",
};

const char *tao_vmstat_name(enum tao_vmstat i)
{
	return (unsigned)i < TVM_MAX ? names[i] : NULL;
}

bool tao_vmstat_has(const struct machine_stats *m, enum tao_vmstat i)
{
	return (unsigned)i < TVM_MAX && (m->tao_present >> i & 1);
}

int machine_parse_tao_vmstat(const char *text, struct machine_stats *m)
{
	m->tao_present = 0;
	for (int i = 0; i < TVM_MAX; i++)
		if (!kv_lookup_u64(text, names[i], &m->tao[i]))
			m->tao_present |= 1u << i;
		else
			m->tao[i] = 0;
	return 0;
}
