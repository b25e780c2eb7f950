// SPDX-License-Identifier: GPL-2.0
/*
 * The contiguity pressure of a report's window: how many batches found
 * the machine in each state, how often it rose, and where it ended. A
 * database older than schema version 6 has none: the report says nothing.
 */
#include <errno.h>
#include <string.h>

#include "report_internal.h"

static int state_index(const char *s)
{
	return !strcmp(s, "full") ? 2 : !strcmp(s, "some") ? 1 : 0;
}

int report_load_pressure(struct loader *l)
{
	struct report_pressure *p = &l->r->pressure;
	sqlite3_stmt *st;
	int prev = 0;

	if (l->version < 6)
		return 0;
	st = prepare_window(l, "SELECT state, why FROM pressure_samples"
			       " WHERE t_ms > ?1 AND t_ms <= ?2 ORDER BY t_ms");
	while (st && sqlite3_step(st) == SQLITE_ROW) {
		int s;

		copy_text(p->last_state, sizeof(p->last_state), st, 0);
		copy_text(p->last_why, sizeof(p->last_why), st, 1);
		s = state_index(p->last_state);
		p->batches[s]++;
		if (s > prev)
			p->entered[s]++;
		prev = s;
	}
	return st && sqlite3_finalize(st) == SQLITE_OK ? 0 : -EIO;
}

size_t report_pressure_batches(const struct report *r)
{
	const struct report_pressure *p = &r->pressure;

	return p->batches[0] + p->batches[1] + p->batches[2];
}
