/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The 2 MiB chunks of a mapping that hold THP pages.
 * Defined in thp_chunks.c.
 */
#ifndef TAOD_ACT_THP_CHUNKS_H
#define TAOD_ACT_THP_CHUNKS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "act/act_backend.h"

/* The unit of the page-table levers: one PMD-sized chunk. */
#define THP_BYTES (2ULL << 20)

/*
 * Chunks read per task and action at most: a tenant mapping terabytes of
 * sparse address space (ASan's shadow is 14 TiB) must not stall taod.
 * 2^18 chunks: 512 GiB of address space, about 0.3 s of reads.
 */
#define THP_SCAN_MAX_CHUNKS (1ULL << 18)

struct thp_pagemaps {
	int pagemap, kpageflags;
	uint64_t chunks_left; /* THP_SCAN_MAX_CHUNKS at open */
};

/* /proc/PID/pagemap and /proc/kpageflags under the root; 0 or -errno. */
int thp_pagemaps_open(pid_t pid, struct thp_pagemaps *m);
void thp_pagemaps_close(struct thp_pagemaps *m);
/* @chunk: 2 MiB-aligned; @page: a mapped page of a THP in it. >0 stops, <0 fails. */
typedef int (*thp_chunk_fn)(void *ctx, uint64_t chunk, uint64_t page);
/* Partly mapped: splitting frees the pages it no longer maps. Whole: all 512. */
enum thp_chunk_kind { THP_CHUNK_PARTIAL, THP_CHUNK_WHOLE };
/*
 * Calls @fn for each 2 MiB chunk of [start, end) of kind @want that maps a
 * page of an anonymous THP (PMD- or PTE-mapped; a file's are never named). Stops once @present_max
 * pages were seen mapped (the mapping's Rss: the rest is empty; 0: no bound). Returns 0, @fn's
 * error, or -errno (-EPERM: the kernel hides PFNs from this caller; -E2BIG: the scan budget is
 * spent; -ETIME: an offload child's time is up, offload.h).
 */
int thp_chunks_scan(struct thp_pagemaps *m, uint64_t start, uint64_t end, uint64_t present_max,
		    enum thp_chunk_kind want, thp_chunk_fn fn, void *ctx);

/* What the page tables hold in one 2 MiB chunk (or the part of it in a mapping). */
struct thp_chunk_view {
	uint64_t present;  /* pages mapped */
	uint64_t thp_page; /* the first mapped page of an anonymous THP, 0 if none */
	bool whole;	   /* all 512 pages map one THP, in order: PMD-mapped */
};

/* Reads [from, to), within one chunk, into @v. 0, or -errno as thp_chunks_scan. */
int thp_chunk_look(struct thp_pagemaps *m, uint64_t from, uint64_t to, struct thp_chunk_view *v);

#endif
