/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A TAO kernel as files in a temporary root: zoneinfo with NoSplit and
 * NoMerge, vmstat, meminfo, memory blocks, a cgroup v2 tree with the TAO
 * memcg files, and one task. A write hook records every write taod makes
 * (and plays the kernel's part for memory block state), or fails chosen
 * ones with an errno.
 */
#ifndef TAOD_TEST_ACT_FIXTURE_H
#define TAOD_TEST_ACT_FIXTURE_H

#include <stdint.h>

#include "taod/act.h"
#include "taod/config.h"

#define FIX_PID	  4242
#define FIX_BLOCK (128ULL << 20)

struct act_fixture {
	char root[64];
	struct taod_config cfg;
	struct cgroup_tree tree;
	struct actor *actor;
	char writes[8192]; /* "path=value\n" per write, paths under the root */
	char fail_path[256];
	int fail_err;
	int fail_count; /* writes failed so far */
};

extern struct act_fixture fx;
extern uint64_t fx_now;

void fx_setup(void);
void fx_teardown(void);
/* Opens the actor with fx.cfg.enforce and @be. */
void fx_open(const struct act_backend_ops *be);
void fx_file(const char *rel, const char *text);
/* Fail writes to @rel (under the root) with -@err. */
void fx_fail(const char *rel, int err);
/* Every file under the root, concatenated with names: a before/after snapshot. */
char *fx_snapshot(void);
struct action_request fx_req(enum action_kind kind, const char *cgroup, pid_t pid, uint64_t bytes);

#endif
