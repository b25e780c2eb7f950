/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Room for a collapse.
 * Defined in free_blocks.c.
 */
#ifndef TAOD_ACT_FREE_BLOCKS_H
#define TAOD_ACT_FREE_BLOCKS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "act/act_backend.h"

/* Free blocks of 2 MiB (order 9 and up, counted in 2 MiB) outside DMA; 0 or -errno. */
int free_thp_blocks(const struct kernel_paths *k, uint64_t *out);

#endif
