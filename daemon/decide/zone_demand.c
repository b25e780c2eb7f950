// SPDX-License-Identifier: GPL-2.0
/*
 * How big the NoSplit zone should be, from the cgroups that hold coverage
 * guarantees, and when to ask act to resize it (TAO kernels only).
 *
 * Demand = sum over the counted cgroups of anon_bytes * guarantee / 100:
 * the THP-backed memory their guarantees promise. A cgroup counts when
 * the policy its path matches has coverage_guarantee > 0, its memory.stat
 * was read, and no ancestor of it counts already: memory.stat is
 * hierarchical (v2 `anon`, v1 `total_rss`), so a counted cgroup's figure
 * holds all of its descendants, at its own policy's guarantee.
 *
 * A request goes out at most once per zone_resize_every, and only when the
 * target act would aim at differs from the NoSplit zone's present size by
 * one memory block or more, so a demand that wobbles moves nothing.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "decide.h"
#include "common/log.h"
#include "policy_match.h"
#include "common/sat_math.h"

#define MIB (1ULL << 20)

struct guaranteed {
	const char *path;
	uint64_t anon, thp;
	double pct; /* 0: no guarantee (collected only for thp_held_sum) */
	bool dry_run;
};

struct demand_sum {
	uint64_t bytes;
	unsigned counted;
	bool all_dry_run;   /* every counted cgroup's policy is dry-run */
	bool any_guarantee; /* some policy has a guarantee at all */
};

/* Path order with '/' first, so that a cgroup's descendants follow it. */
static int path_order(const void *a, const void *b)
{
	const char *x = ((const struct guaranteed *)a)->path;
	const char *y = ((const struct guaranteed *)b)->path;

	for (; *x && *x == *y; x++, y++)
		;
	return (*x == '/' ? 1 : (unsigned char)*x) - (*y == '/' ? 1 : (unsigned char)*y);
}

static bool is_descendant(const char *anc, const char *path)
{
	size_t n = strlen(anc);

	if (!strcmp(anc, "/"))
		return strcmp(path, "/") != 0;
	return !strncmp(anc, path, n) && path[n] == '/';
}

static bool policies_guarantee(const struct policy_set *ps)
{
	for (unsigned i = 0; i < ps->n; i++)
		if (ps->v[i].coverage_guarantee > 0)
			return true;
	return false;
}

/* The cgroups with a memory.stat reading, guaranteed ones only unless
 * @all, in path order; NULL on no memory. */
static struct guaranteed *collect(const struct cgroup_table *t, const struct policy_set *ps,
				  bool all, size_t *n)
{
	struct guaranteed *g = calloc(t->n + 1, sizeof(*g));

	*n = 0;
	for (size_t i = 0; g && i < t->n; i++) {
		const struct cgroup_entry *e = t->v[i];
		const struct policy *p;

		if (!e->path || !e->mem_ok)
			continue;
		p = policy_lookup(ps, e->path, NULL);
		if (p->coverage_guarantee <= 0 && !all)
			continue;
		g[(*n)++] = (struct guaranteed){
		    e->path, e->mem.anon_bytes, e->mem.thp_bytes,
		    p->coverage_guarantee > 0 ? p->coverage_guarantee : 0, p->dry_run};
	}
	if (g)
		qsort(g, *n, sizeof(*g), path_order);
	return g;
}

static void sum_demand(const struct cgroup_table *t, const struct policy_set *ps,
		       struct demand_sum *out)
{
	const char *top = NULL;
	struct guaranteed *g;
	size_t n;

	memset(out, 0, sizeof(*out));
	out->all_dry_run = true;
	out->any_guarantee = policies_guarantee(ps);
	if (!out->any_guarantee)
		return;
	g = collect(t, ps, false, &n);
	if (!g)
		return;
	for (size_t i = 0; i < n; i++) {
		if (top && is_descendant(top, g[i].path))
			continue; /* in its counted ancestor's figure already */
		top = g[i].path;
		out->bytes += (uint64_t)((double)g[i].anon * g[i].pct / 100.0);
		out->counted++;
		out->all_dry_run &= g[i].dry_run;
	}
	free(g);
}

uint64_t zone_demand_bytes(const struct cgroup_table *t, const struct policy_set *ps,
			   unsigned *counted)
{
	struct demand_sum s;

	sum_demand(t, ps, &s);
	if (counted)
		*counted = s.counted;
	return s.bytes;
}

/* What a guarantee promises beyond the THP bytes the cgroup holds. */
static uint64_t shortfall(const struct guaranteed *g)
{
	uint64_t promised = (uint64_t)((double)g->anon * g->pct / 100.0);

	return promised > g->thp ? promised - g->thp : 0;
}

void thp_held_sum(const struct cgroup_table *t, const struct policy_set *ps, struct thp_held *out)
{
	const char *top = NULL, *gtop = NULL;
	struct guaranteed *g;
	size_t n;

	memset(out, 0, sizeof(*out));
	g = collect(t, ps, true, &n);
	for (size_t i = 0; g && i < n; i++) {
		if (!top || !is_descendant(top, g[i].path)) {
			top = g[i].path; /* its figure holds its descendants' */
			out->held_bytes += g[i].thp;
			out->cgroups++;
		}
		if (g[i].pct <= 0 || (gtop && is_descendant(gtop, g[i].path)))
			continue;
		gtop = g[i].path;
		out->shortfall_bytes += shortfall(&g[i]);
		out->guaranteed++;
	}
	free(g);
}

/* The resize would move at least one block. */
static bool a_block_off(const struct zone_view *v)
{
	uint64_t diff = v->target_bytes > v->nosplit_bytes ? v->target_bytes - v->nosplit_bytes
							   : v->nosplit_bytes - v->target_bytes;

	return diff && diff >= v->block_bytes;
}

static void ask_resize(struct zone_demand *z, const struct demand_sum *s,
		       const struct decide_io *io)
{
	struct action_request req = {.kind = ACTION_RESIZE_ZONES, .bytes = s->bytes};

	req.dry_run = s->counted && s->all_dry_run;
	snprintf(req.policy, sizeof(req.policy), "coverage guarantees");
	snprintf(req.evidence, sizeof(req.evidence),
		 "THP demand %llu MiB of %u guaranteed cgroups; NoSplit %llu MiB, target %llu "
		 "MiB, block %llu MiB",
		 (unsigned long long)(s->bytes / MIB), s->counted,
		 (unsigned long long)(z->view.nosplit_bytes / MIB),
		 (unsigned long long)(z->view.target_bytes / MIB),
		 (unsigned long long)(z->view.block_bytes / MIB));
	z->requests++;
	if (io->sink)
		io->sink(io->sink_ctx, &req);
}

bool zone_demand_tick(struct zone_demand *z, const struct cgroup_table *t, uint64_t now_ms,
		      const struct decide_io *io)
{
	struct demand_sum s;
	int r;

	if (now_ms >= z->held_next_ms) { /* the peak the boot recommendation keeps */
		struct thp_held h;

		z->held_next_ms = now_ms + 1000;
		thp_held_sum(t, io->policies, &h);
		thp_peak_add(&z->held_peak, io->held_window_ms, now_ms, h.held_bytes);
	}
	if (!io->zone_view || now_ms < z->next_ms)
		return false;
	z->next_ms = sat_add_u64(now_ms, io->zone_resize_every_ms);
	sum_demand(t, io->policies, &s);
	z->demand_bytes = s.bytes;
	z->guaranteed = s.counted;
	if (!s.any_guarantee)
		return false; /* nobody holds a guarantee: the zones keep their boot size */
	r = io->zone_view(io->zone_view_ctx, s.bytes, &z->view);
	if (r) {
		log_debug("policy zones unreadable (%d): no resize this time", r);
		return false;
	}
	if (!a_block_off(&z->view))
		return false;
	ask_resize(z, &s, io);
	return true;
}
