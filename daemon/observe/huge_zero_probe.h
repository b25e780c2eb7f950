/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The huge zero page's PFN. Before 6.2 a PMD split of the huge zero page
 * looks like a THP's to the BPF programs except for the PFN. taod maps the
 * huge zero page itself (a read fault in a MADV_HUGEPAGE region) and keeps
 * it mapped: a mapped huge zero page is never freed, so its PFN holds for
 * taod's lifetime. Needs the PFNs of /proc/self/pagemap (CAP_SYS_ADMIN).
 */
#ifndef TAOD_HUGE_ZERO_PROBE_H
#define TAOD_HUGE_ZERO_PROBE_H

#include <stddef.h>
#include <stdint.h>

struct huge_zero_probe {
	void *map; /* the mapping that holds the huge zero page */
	size_t len;
	uint64_t pfn;
};

/* 0 with @z filled, or -errno (-ENOENT: no huge zero page was mapped,
 * e.g. THP disabled or use_zero_page off). */
int huge_zero_probe_open(struct huge_zero_probe *z);
void huge_zero_probe_close(struct huge_zero_probe *z);

#endif
