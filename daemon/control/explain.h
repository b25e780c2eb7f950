/* SPDX-License-Identifier: GPL-2.0 */
/*
 * `explain`: why a cgroup's or a task's THPs split. The reply's JSON, built
 * from task rows, and its rendering for people (taoctl explain).
 */
#ifndef TAOD_EXPLAIN_H
#define TAOD_EXPLAIN_H

#include <stdbool.h>
#include <stdio.h>

#include "allocator.h"
#include "observe/task_rows.h"

struct json_object;

/* {"cause": splits} of the causes with splits, most first. */
struct json_object *explain_causes_json(const __u64 by_cause[TAOD_CAUSE_MAX]);
/* A task's allocator (NULL: unknown) and what told it: "stack" (the
 * splitting call's frames) or "maps" (the libraries it has loaded). */
struct explain_alloc {
	const struct allocator_rule *rule;
	const char *from;
};

/* One task: counts, splits by cause, top cause, and the allocator and its
 * fix (@alloc->rule NULL: unknown, e.g. the task is gone). @cgroup may be
 * NULL; @stack (split_stack_json, or NULL for none sampled) is taken over. */
struct json_object *explain_task_json(const struct task_row *r, const char *cgroup, bool alive,
				      const struct explain_alloc *alloc, struct json_object *stack);
/* Adds up the tasks' splits by cause into @sum (zeroed first). */
void explain_sum_causes(const struct task_row *rows, size_t n, __u64 sum[TAOD_CAUSE_MAX]);
/* Prints an explain reply for people, stack frames symbolized where their
 * file can be read. Returns 0, or -1 if @reply lacks its "tasks" list. */
int explain_print(FILE *f, struct json_object *reply);

#endif
