/* SPDX-License-Identifier: GPL-2.0 */
/* A top offender's last sampled split stack, for `explain`. */
#ifndef TAOD_SPLIT_STACK_H
#define TAOD_SPLIT_STACK_H

#include "taod/thp_observe.h"

struct json_object;
struct file_lookups;

/*
 * {"samples", "cause", "frames": [{"build_id", "offset", "file"} or {"ip",
 * "offset", "file"}]}: @maps (the task's /proc/PID/maps text, or NULL when
 * it is gone) names each frame's file, the one with the frame's build-id
 * (its path looked up under @root, the task's, within @l's budget; a
 * deleted file's name is never looked up) or the one mapped at its IP.
 */
struct json_object *split_stack_json(const struct taod_split_stack *s, const char *maps,
				     const char *root, struct file_lookups *l);

#endif
