/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The stock split aimed at multi-size THPs (below the PMD size), for a
 * tenant judged under a policy with `sizes = mthp` or `all`. smaps names
 * no folio below the PMD size, so each anonymous mapping with no PMD THP
 * is written whole to debugfs split_huge_pages, which splits every large
 * folio it finds there to base pages (6.12 and newer; 6.1 has no anonymous
 * mTHP). What was split is told by the kernel's per-size `split` stats
 * around the writes: machine-wide, so a count, not a proof.
 */
#ifndef TAOD_MTHP_SPLIT_H
#define TAOD_MTHP_SPLIT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "taod/thp_observe.h" /* TAOD_MAX_ORDER */

struct kernel_paths;
struct vma_info;

struct mthp_split_tally {
	bool counted;			 /* the kernel has per-size split stats */
	int writes, failed, err;	 /* debugfs writes, failed ones, the last error */
	uint64_t split[TAOD_MAX_ORDER];	 /* the kernel's split stat deltas, by order */
	uint64_t before[TAOD_MAX_ORDER]; /* the stats at the start */
};

/* Reads the per-size split stats into @t->before; false (and @t->counted
 * false) where the kernel has none below the PMD size. */
bool mthp_split_begin(const struct kernel_paths *k, struct mthp_split_tally *t);

/* Writes "PID,0xSTART,0xEND" for @v to @path if it is an anonymous
 * mapping that may hold folios below the PMD size and none of the PMD
 * size; then updates @t->split. Returns the bytes of folios split so far
 * (all sizes), or -errno when debugfs refuses (EPERM, EACCES, ENOENT,
 * EROFS: no way to aim at these folios). */
int64_t mthp_split_mapping(const struct kernel_paths *k, const char *path, pid_t pid,
			   const struct vma_info *v, struct mthp_split_tally *t);

/* "; below the PMD: N mapping write(s), split 64K 12 16K 3 (kernel, machine-wide)"
 * or "" when nothing was written. */
void mthp_split_text(const struct mthp_split_tally *t, char *buf, size_t len);

#endif
