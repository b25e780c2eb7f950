// SPDX-License-Identifier: GPL-2.0
/*
 * Actions in the history: a row of actions per audit record, with (schema
 * 7) a row of action_costs per cost figure and a row of action_benefits
 * per follow-up.
 */
#include <assert.h>
#include <errno.h>
#include <stdio.h>

#include "history_internal.h"

static int cost_row(struct history *h, int64_t action, const char *stat, uint64_t value)
{
	sqlite3_stmt *st = hst(h, HS_INSERT_COST);

	sqlite3_bind_int64(st, 1, action);
	sqlite3_bind_text(st, 2, stat, -1, SQLITE_TRANSIENT);
	sqlite3_bind_int64(st, 3, (sqlite3_int64)value);
	return hst_done(h, st);
}

/* cpu_us:<phase> and wall_us:<phase>, the report's names for them. */
static int phase_rows(struct history *h, int64_t action, const struct action_cost *c)
{
	char stat[48];
	int r = 0;

	for (int p = 0; p < PHASE_MAX && !r; p++) {
		snprintf(stat, sizeof(stat), "cpu_us:%s", action_phase_name(p));
		r = cost_row(h, action, stat, c->cpu_us[p]);
		snprintf(stat, sizeof(stat), "wall_us:%s", action_phase_name(p));
		r = r ? r : cost_row(h, action, stat, c->wall_us[p]);
	}
	return r;
}

static int record_cost(struct history *h, int64_t action, const struct action_cost *c)
{
	int r = phase_rows(h, action, c);

	for (unsigned i = 0; i < COST_NCOUNTERS && !r; i++)
		if (c->kernel_present & (1u << i))
			r = cost_row(h, action, cost_counter_name(i), c->kernel[i]);
	if (!r && c->free_known)
		r = cost_row(h, action, "free_pmd_before", c->free_pmd_before) ||
		    cost_row(h, action, "free_pmd_after", c->free_pmd_after);
	return r ? -EIO : 0;
}

int history_record_benefit(struct history *h, const struct action_benefit *b)
{
	assert(h);
	assert(b);

	sqlite3_stmt *st;

	if (!h)
		return -ENOENT;
	st = hst(h, HS_INSERT_BENEFIT);
	sqlite3_bind_int64(st, 1, h->run);
	sqlite3_bind_int64(st, 2, (sqlite3_int64)b->id);
	sqlite3_bind_int64(st, 3, (sqlite3_int64)b->after_ms);
	sqlite3_bind_int(st, 4, b->final);
	if (b->free_known)
		sqlite3_bind_int64(st, 5, b->free_pmd_regained);
	sqlite3_bind_int(st, 6, (int)b->wanting);
	sqlite3_bind_int(st, 7, (int)b->coverage_n);
	if (b->coverage_n)
		sqlite3_bind_double(st, 8, b->coverage_change);
	if (b->wanting)
		sqlite3_bind_double(st, 9, b->fallback_rate);
	if (hst_done(h, st))
		return -EIO;
	return sqlite3_changes(h->db) ? 0 : -ENOENT;
}

int history_record_action(struct history *h, const struct action_record *a)
{
	assert(h);
	assert(a);

	sqlite3_stmt *st;

	if (!h)
		return -ENOENT;
	st = hst(h, HS_INSERT_ACTION);
	sqlite3_bind_int64(st, 1, (sqlite3_int64)a->time_ms);
	sqlite3_bind_text(st, 2, a->req.cgroup, -1, SQLITE_STATIC);
	sqlite3_bind_int64(st, 3, (sqlite3_int64)a->req.cgroup_id);
	sqlite3_bind_text(st, 4, action_kind_name(a->req.kind), -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 5, action_result_name(a->result), -1, SQLITE_STATIC);
	sqlite3_bind_int(st, 6, a->err);
	sqlite3_bind_int64(st, 7, a->req.pid);
	sqlite3_bind_int64(st, 8, (sqlite3_int64)a->bytes);
	sqlite3_bind_int(st, 9, a->req.dry_run);
	bind_text_or_null(st, 10, a->req.policy);
	bind_text_or_null(st, 11, a->req.evidence);
	bind_text_or_null(st, 12, a->detail);
	/* Unbound, the shatter counts stay NULL: not counted. */
	if (a->shatter.counted) {
		sqlite3_bind_int64(st, 13, (sqlite3_int64)a->shatter.shattered);
		sqlite3_bind_int64(st, 14, (sqlite3_int64)a->shatter.failed);
		sqlite3_bind_int64(st, 15, (sqlite3_int64)a->shatter.discarded);
		sqlite3_bind_int64(st, 16, (sqlite3_int64)a->shatter.split);
	}
	if (a->shatter.split_counted) {
		sqlite3_bind_int64(st, 19, (sqlite3_int64)a->shatter.bytes_split);
		sqlite3_bind_int64(st, 20, (sqlite3_int64)a->shatter.thps_split);
		sqlite3_bind_int64(st, 21, (sqlite3_int64)a->shatter.partial_thps);
		sqlite3_bind_int64(st, 22, (sqlite3_int64)a->shatter.pages_migrated);
	}
	sqlite3_bind_int64(st, 17, h->run);
	sqlite3_bind_int64(st, 18, (sqlite3_int64)a->id);
	if (hst_done(h, st))
		return -EIO;
	return a->cost.measured ? record_cost(h, sqlite3_last_insert_rowid(h->db), &a->cost) : 0;
}
