/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Coverage by folio size: the bytes a cgroup holds in anonymous folios of
 * each order (BPF's nr_anon, kept at map, split and free, no page-table
 * scan) and their share of its anon memory (memory.stat).
 */
#ifndef TAOD_SIZE_HELD_H
#define TAOD_SIZE_HELD_H

#include <stdint.h>

#include "cgroup_state.h"

/* Bytes @e holds in anonymous folios of @order (2 to TAOD_MAX_ORDER-1);
 * 0 for any other order or none counted. */
uint64_t size_held_bytes(const struct cgroup_entry *e, int order);

/* Those bytes as a percentage of @e's anon memory (memory.stat), capped at
 * 100 (the two are read at different instants); -1 when memory.stat was
 * not read or shows no anon memory. */
double size_coverage_pct(const struct cgroup_entry *e, int order);

/* The per-size events shown for @e: its own and its removed descendants'
 * (cgroup_fold.c), with its own nr_anon. */
void size_counts_shown(const struct cgroup_entry *e, struct taod_cg_sizes *out);

/* Folios of @order (2 to TAOD_MAX_ORDER-1) @e has partly mapped now (BPF's
 * nr_partial); 0 for any other order or none counted. */
uint64_t size_partial_folios(const struct cgroup_entry *e, int order);
/* Their bytes over every order: the contiguity @e strands now. */
uint64_t size_partial_bytes(const struct cgroup_entry *e);
/* The PMD's folio order (9 with 4 KiB pages). */
int size_pmd_order(void);

/* Folio size of @order in KiB (the page size's). */
uint64_t size_kb_of(int order);

#endif
