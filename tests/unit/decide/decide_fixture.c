// SPDX-License-Identifier: GPL-2.0
#include "decide_fixture.h"

#include <criterion/criterion.h>
#include <string.h>

void decide_fixture_sink(void *ctx, const struct action_request *r)
{
	struct decide_fixture *f = ctx;

	cr_assert(f->nreqs < FIXTURE_REQS);
	f->reqs[f->nreqs++] = *r;
}

size_t decide_fixture_tasks(void *ctx, struct task_row *out, size_t max)
{
	struct decide_fixture *f = ctx;

	f->task_reads++;
	cr_assert(max >= f->nrows);
	memcpy(out, f->rows, f->nrows * sizeof(*out));
	return f->nrows;
}
