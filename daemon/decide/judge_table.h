/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Decide's per-cgroup memory, by cgroup id: what a decide pass adds,
 * names and sweeps. Defined in judge_table.c.
 */
#ifndef TAOD_DECIDE_JUDGE_TABLE_H
#define TAOD_DECIDE_JUDGE_TABLE_H

#include <stdint.h>

#include "decide.h"

/* A new judge for cgroup @id, in the table; NULL when out of memory. */
struct cg_judge *judge_table_add(struct decide_state *s, uint64_t id);
/* Forgets the judges of cgroups this pass did not see. */
void judge_table_sweep(struct decide_state *s);
/* Keeps @j's copy of the path in step with @path; 0 or -ENOMEM. */
int judge_set_path(struct cg_judge *j, const char *path);

#endif
