// SPDX-License-Identifier: GPL-2.0
/*
 * Actions' cost and benefit in a report's window (schema 7 on): the cost
 * figures of action_costs and each action's last benefit follow-up,
 * summed per action kind and policy, and per kind and tenant. A database
 * older than version 7 has none: the report says nothing of them.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "report_internal.h"

/* Grouped by ?key: coalesce(policy, '') or coalesce(cgroup, ''). */
static const char cost_sql[] = "SELECT coalesce(a.%s, ''), a.kind, c.stat, sum(c.value), count(*)"
			       " FROM actions a JOIN action_costs c ON c.action = a.id"
			       " WHERE a.t_ms > ?1 AND a.t_ms <= ?2 GROUP BY 1, 2, 3 ORDER BY 1, 2";
static const char benefit_sql[] =
    "SELECT coalesce(a.%s, ''), a.kind, count(*), count(b.free_pmd_regained),"
    " total(b.free_pmd_regained), sum(b.coverage_n > 0),"
    " total(CASE WHEN b.coverage_n > 0 THEN b.coverage_change END), sum(b.wanting > 0),"
    " total(CASE WHEN b.wanting > 0 THEN b.fallback_rate END)"
    " FROM actions a JOIN action_benefits b ON b.action = a.id"
    " WHERE a.t_ms > ?1 AND a.t_ms <= ?2"
    " AND b.after_ms = (SELECT max(after_ms) FROM action_benefits x WHERE x.action = a.id)"
    " GROUP BY 1, 2";

static struct report_cost_group *group(struct report_cost_group **v, size_t *n, sqlite3_stmt *st)
{
	char name[sizeof((*v)->name)], kind[sizeof((*v)->kind)];
	struct report_cost_group *g;

	copy_text(name, sizeof(name), st, 0);
	copy_text(kind, sizeof(kind), st, 1);
	for (size_t i = 0; i < *n; i++)
		if (!strcmp((*v)[i].name, name) && !strcmp((*v)[i].kind, kind))
			return &(*v)[i];
	g = push(v, n, sizeof(**v));
	if (g) {
		memcpy(g->name, name, sizeof(name));
		memcpy(g->kind, kind, sizeof(kind));
	}
	return g;
}

/* One summed stat of action_costs into @g. */
static void add_stat(struct report_cost_group *g, const char *stat, uint64_t sum, size_t count)
{
	for (int p = 0; p < PHASE_MAX; p++) {
		if (!strncmp(stat, "cpu_us:", 7) && !strcmp(stat + 7, action_phase_name(p))) {
			g->cpu_us[p] += sum;
			if (p == PHASE_LEVER) /* every measured action has its lever's time */
				g->actions += count;
		}
		if (!strncmp(stat, "wall_us:", 8) && !strcmp(stat + 8, action_phase_name(p)))
			g->wall_us[p] += sum;
	}
	for (unsigned i = 0; i < COST_NCOUNTERS; i++)
		if (!strcmp(stat, cost_counter_name(i))) {
			g->kernel[i] += sum;
			g->kernel_present |= 1u << i;
		}
}

/* One summed stat of action_costs. */
static void cost_row(struct report_cost_group *g, sqlite3_stmt *st)
{
	char stat[48];

	copy_text(stat, sizeof(stat), st, 2);
	add_stat(g, stat, (uint64_t)sqlite3_column_int64(st, 3),
		 (size_t)sqlite3_column_int64(st, 4));
}

static void benefit_row(struct report_cost_group *g, sqlite3_stmt *st)
{
	g->followed = (size_t)sqlite3_column_int64(st, 2);
	g->free_n = (size_t)sqlite3_column_int64(st, 3);
	g->free_regained = (int64_t)sqlite3_column_double(st, 4);
	g->coverage_n = (size_t)sqlite3_column_int64(st, 5);
	g->coverage_change = g->coverage_n ? sqlite3_column_double(st, 6) / g->coverage_n : 0;
	g->fallback_n = (size_t)sqlite3_column_int64(st, 7);
	g->fallback_rate = g->fallback_n ? sqlite3_column_double(st, 8) / g->fallback_n : 0;
}

/* The rows of @fmt (cost_sql or benefit_sql) grouped by @key into @v. */
static int load_grouped(struct loader *l, const char *fmt, const char *key,
			struct report_cost_group **v, size_t *n,
			void (*add)(struct report_cost_group *g, sqlite3_stmt *st))
{
	char sql[sizeof(benefit_sql) + sizeof(cost_sql)];
	sqlite3_stmt *st;

	snprintf(sql, sizeof(sql), fmt, key);
	st = prepare_window(l, sql);
	while (st && sqlite3_step(st) == SQLITE_ROW) {
		struct report_cost_group *g = group(v, n, st);

		if (!g)
			return report_no_memory(l, st);
		add(g, st);
	}
	return st && sqlite3_finalize(st) == SQLITE_OK ? 0 : -EIO;
}

int report_load_costs(struct loader *l)
{
	struct report_costs *c = &l->r->costs;
	int r;

	if (l->version < 7)
		return 0;
	r = load_grouped(l, cost_sql, "policy", &c->by_policy, &c->npolicy, cost_row);
	r = r ? r : load_grouped(l, benefit_sql, "policy", &c->by_policy, &c->npolicy, benefit_row);
	r = r ? r : load_grouped(l, cost_sql, "cgroup", &c->by_tenant, &c->ntenant, cost_row);
	return r ? r
		 : load_grouped(l, benefit_sql, "cgroup", &c->by_tenant, &c->ntenant, benefit_row);
}
