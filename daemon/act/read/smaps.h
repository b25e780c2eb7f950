/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The mappings of a task.
 * Defined in smaps.c.
 */
#ifndef TAOD_ACT_SMAPS_H
#define TAOD_ACT_SMAPS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "act/act_backend.h"

struct vma_info {
	uint64_t start, end;
	uint64_t rss, anon, anon_huge; /* bytes */
	bool no_hugepage;	       /* VmFlags "nh": MADV_NOHUGEPAGE, MADV_COLLAPSE refused */
	bool anon_mapping;	       /* no backing file */
	bool file_backed;	       /* an inode: a file, shmem or memfd */
};

typedef int (*vma_visit_fn)(void *ctx, const struct vma_info *v);
/*
 * Calls @fn for each mapping of an smaps file; non-zero from @fn stops.
 * -ETIME when an offload child's time ran out inside the read (offload.h).
 */
int smaps_scan(const char *path, vma_visit_fn fn, void *ctx);
/* All mappings of an smaps file in a malloc'd array (*out); count or -errno. */
int smaps_collect(const char *path, struct vma_info **out);
/* Why an smaps read failed, for a record: -ETIME names the likely cause. */
const char *smaps_read_error(int err);
/* The AnonHugePages of @n mappings, summed: PMD-mapped THP bytes. */
uint64_t smaps_anon_huge(const struct vma_info *v, int n);

#endif
