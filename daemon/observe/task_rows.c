// SPDX-License-Identifier: GPL-2.0
#include "task_rows.h"

#include <assert.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "thp_observe.h"

struct task_collect {
	struct task_row *rows;
	size_t n, cap;
};

static void on_task(void *user, uint32_t tgid, const struct taod_task_counters *c)
{
	struct task_collect *tc = user;

	if (tc->n == tc->cap) {
		size_t cap = tc->cap ? tc->cap * 2 : 256;
		struct task_row *r = realloc(tc->rows, cap * sizeof(*r));

		if (!r)
			return;
		tc->rows = r;
		tc->cap = cap;
	}
	tc->rows[tc->n].tgid = tgid;
	tc->rows[tc->n].c = *c;
	tc->n++;
}

static int compare_tasks(const void *a, const void *b)
{
	const struct task_row *x = a, *y = b;

	if (x->c.pmd_split != y->c.pmd_split)
		return x->c.pmd_split < y->c.pmd_split ? 1 : -1;
	if (x->c.thp_fault_alloc != y->c.thp_fault_alloc)
		return x->c.thp_fault_alloc < y->c.thp_fault_alloc ? 1 : -1;
	return x->tgid < y->tgid ? -1 : x->tgid > y->tgid;
}

size_t task_rows_collect(struct thp_observe *o, struct task_row *rows, size_t max)
{
	assert(rows || !max);

	struct task_collect tc = {0};
	size_t n;

	thp_observe_read_tasks(o, on_task, &tc);
	if (!tc.n) /* no row yet: tc.rows is NULL, which qsort may not take */
		return 0;
	qsort(tc.rows, tc.n, sizeof(*tc.rows), compare_tasks);
	n = tc.n < max ? tc.n : max;
	if (n)
		memcpy(rows, tc.rows, n * sizeof(*rows));
	free(tc.rows);
	return n;
}

int task_rows_watch_top(struct thp_observe *o)
{
	struct task_row *rows = calloc(TAOD_MAX_TASKS, sizeof(*rows));
	uint32_t top[TAOD_STACK_WATCH];
	size_t n, k = 0;

	if (!rows)
		return -ENOMEM;
	n = task_rows_collect(o, rows, TAOD_MAX_TASKS);
	for (size_t i = 0; i < n && k < TAOD_STACK_WATCH && rows[i].c.pmd_split; i++)
		top[k++] = rows[i].tgid;
	free(rows);
	return thp_observe_watch_stacks(o, top, k);
}
