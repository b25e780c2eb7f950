/* SPDX-License-Identifier: GPL-2.0 */
/* The allocator that made a task's sampled splitting call, for `explain`. */
#ifndef TAOD_STACK_ALLOCATOR_H
#define TAOD_STACK_ALLOCATOR_H

#include <sys/types.h>

#include "allocator.h"

struct json_object;
struct file_lookups;

/*
 * allocator_of_frames() over split_stack_json()'s @stack of task @pid,
 * each frame's function looked up in its file under @root within @l's
 * budget; the program itself is the Go runtime's when the task's
 * executable is Go. NULL when the stack names no file (or @stack is NULL).
 */
const struct allocator_rule *stack_allocator(struct json_object *stack, pid_t pid, const char *root,
					     struct file_lookups *l);

#endif
