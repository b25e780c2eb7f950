/* SPDX-License-Identifier: GPL-2.0 */
/* What decide's tests hand decide_tick: a sink that keeps the requests and
 * a task source that serves rows the test wrote. */
#ifndef TAOD_TEST_DECIDE_FIXTURE_H
#define TAOD_TEST_DECIDE_FIXTURE_H

#include <stddef.h>

#include "decide/decide.h"
#include "observe/task_rows.h"

#define FIXTURE_REQS 64
#define FIXTURE_ROWS 8

struct decide_fixture {
	struct action_request reqs[FIXTURE_REQS];
	unsigned nreqs;
	struct task_row rows[FIXTURE_ROWS];
	size_t nrows;
	unsigned task_reads;
};

/* action_sink_fn and task_source_fn over a struct decide_fixture (@ctx). */
void decide_fixture_sink(void *ctx, const struct action_request *r);
size_t decide_fixture_tasks(void *ctx, struct task_row *out, size_t max);

#endif
