/* SPDX-License-Identifier: GPL-2.0 */
/* The allocator that made a task's sampled splitting call, for `explain`. */
#ifndef TAOD_STACK_ALLOCATOR_H
#define TAOD_STACK_ALLOCATOR_H

#include <sys/types.h>

#include "allocator.h"

struct json_object;
struct file_lookups;

/*
 * The allocator that made split_stack_json()'s @stack of task @pid, its
 * files looked up under @root within @l's budget, the task's mappings
 * @maps (NULL: unknown) the second witness: a frame in an allocator's
 * library names it; libc's wrappers called from below (a caller frame
 * that frame-pointer unwinding cannot show) are the allocator library the
 * maps name, else glibc's malloc where the caller shown cannot have called
 * them, else allocator_of_frames() (the program itself: the Go runtime's
 * when the executable is Go; glibc's malloc only where no loaded library
 * replaces malloc). NULL when the stack cannot tell (a split not
 * made by a call that returns memory, no file, the caller's imports
 * unknown: the budget spent): the maps decide.
 */
const struct allocator_rule *stack_allocator(struct json_object *stack, pid_t pid, const char *root,
					     const char *maps, struct file_lookups *l);

#endif
