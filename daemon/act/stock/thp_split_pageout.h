/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The stock split where debugfs is locked down.
 * Defined in thp_split_pageout.c.
 */
#ifndef TAOD_ACT_THP_SPLIT_PAGEOUT_H
#define TAOD_ACT_THP_SPLIT_PAGEOUT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "act/act_backend.h"
#include "act/read/proc_tasks.h"
#define PAGEOUT_BATCH 64
/* MADV_PAGEOUT of one page of each of @n THPs splits them; 0 or -errno. */
long thp_pageout_pages(const struct task_ref *t, const uint64_t *pages, int n);

#endif
