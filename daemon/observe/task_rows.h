/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Per-task THP counters as observed: one row per task, most PMD splits
 * first. decide names offenders from them and `taoctl top-tasks` lists them.
 */
#ifndef TAOD_TASK_ROWS_H
#define TAOD_TASK_ROWS_H

#include <stddef.h>
#include <stdint.h>

#include <linux/types.h>

#include "taod/thp_observe.h"

struct thp_observe;

struct task_row {
	uint32_t tgid;
	struct taod_task_counters c;
};

/* Fills up to @max rows from the observer's per-task map; returns how many. */
size_t task_rows_collect(struct thp_observe *o, struct task_row *rows, size_t max);

/* Marks the tasks that split the most (at most TAOD_STACK_WATCH) for
 * user stack sampling, and unmarks the others. Returns 0 or -errno. */
int task_rows_watch_top(struct thp_observe *o);

#endif
