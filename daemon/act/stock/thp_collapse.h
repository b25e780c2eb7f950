/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Process_madvise(MADV_COLLAPSE), both kernels.
 * Defined in thp_collapse.c.
 */
#ifndef TAOD_ACT_THP_COLLAPSE_H
#define TAOD_ACT_THP_COLLAPSE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "act/act_backend.h"

/*
 * RESULT_DONE when the tasks' THP bytes grew (o->gained_bytes), RESULT_NO_GAIN
 * when nothing was collapsed (o->kernel_untouched when nothing was even
 * advised), RESULT_FAILED when the kernel refused and nothing grew.
 */
void thp_collapse_cgroup(const struct act_ctx *c, const struct action_request *req, uint64_t budget,
			 struct act_outcome *o);
/* Tests play the kernel's part: @fn answers process_madvise(MADV_COLLAPSE). */
struct iovec;
typedef long (*collapse_hook_fn)(void *ctx, pid_t pid, const struct iovec *iov, int n);
void thp_collapse_set_hook(collapse_hook_fn fn, void *ctx);

#endif
