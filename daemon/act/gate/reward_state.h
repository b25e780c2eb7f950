/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The last collapse asked for each cgroup.
 * Defined in reward_state.c.
 */
#ifndef TAOD_ACT_REWARD_STATE_H
#define TAOD_ACT_REWARD_STATE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "act/act_backend.h"

struct reward_entry {
	char *cgroup;
	enum action_result result;
	uint64_t at_ms; /* monotonic */
	uint64_t gained_bytes;
	char detail[256];
};

struct reward_table {
	struct reward_entry *v;
	size_t n, cap;
};

void reward_table_put(struct reward_table *t, const char *cgroup, const struct act_outcome *o,
		      uint64_t now_ms);
/* NULL when no collapse was asked for @cgroup (or it was forgotten). */
const struct reward_entry *reward_table_get(const struct reward_table *t, const char *cgroup);
void reward_table_free(struct reward_table *t);

#endif
