// SPDX-License-Identifier: GPL-2.0
/*
 * The THP demand of guaranteed cgroups and the pacing of zone resize
 * requests, with hand-made cgroup entries and a hand-made NoSplit zone.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>

#include "decide/decide.h"

#define MIB   (1ULL << 20)
#define BLOCK (128 * MIB)
#define EVERY 60000

static struct cgroup_table table;
static struct policy_set policies;
static struct decide_state st;
static struct action_request reqs[16];
static unsigned nreqs, views;
static uint64_t nosplit_now, headroom;
static uint64_t next_id = 100;

static void capture(void *ctx, const struct action_request *r)
{
	(void)ctx;
	cr_assert(nreqs < 16);
	reqs[nreqs++] = *r;
}

/* A NoSplit zone of nosplit_now bytes; target = demand + headroom. */
static int view(void *ctx, uint64_t demand, struct zone_view *out)
{
	(void)ctx;
	views++;
	out->nosplit_bytes = nosplit_now;
	out->block_bytes = BLOCK;
	out->target_bytes = demand + headroom;
	return 0;
}

static struct policy *add_policy(const char *name, const char *glob, double guarantee)
{
	struct policy *p = &policies.v[policies.n++];

	policy_builtin_default(p);
	snprintf(p->name, sizeof(p->name), "%s", name);
	snprintf(p->globs[0], sizeof(p->globs[0]), "%s", glob);
	p->nglobs = 1;
	p->coverage_guarantee = guarantee;
	p->dry_run = false; /* opted into actions */
	return p;
}

static void cg(const char *path, uint64_t anon, bool readable)
{
	struct memstat m = {.anon_bytes = anon, .thp_bytes = anon / 4, .has_anon = true};
	struct cgroup_entry *e = cgroup_table_touch(&table, next_id++, path, 0, 1000);

	cr_assert_not_null(e);
	cgroup_entry_set_memstat(e, readable ? &m : NULL, readable);
}

static void setup(void)
{
	cgroup_table_init(&table, 8);
	decide_init(&st);
	memset(&policies, 0, sizeof(policies));
	policy_builtin_default(&policies.v[0]);
	policies.n = 1;
	nreqs = views = 0;
	nosplit_now = 0;
	headroom = 0;
	cgroup_table_begin_tick(&table);
}

static void teardown(void)
{
	cgroup_table_free(&table);
	decide_free(&st);
}

TestSuite(zone_demand, .init = setup, .fini = teardown);

static struct decide_io io_for(bool tao)
{
	return (struct decide_io){.policies = &policies,
				  .tao_kernel = tao,
				  .sink = capture,
				  .zone_view = view,
				  .zone_resize_every_ms = EVERY};
}

static bool step(uint64_t now)
{
	struct decide_io io = io_for(true);

	return zone_demand_tick(&st.zones, &table, now, &io);
}

Test(zone_demand, sums_anon_times_guarantee_of_guaranteed_cgroups_only)
{
	unsigned n = 0;

	add_policy("lat", "/lat/*", 50);
	add_policy("db", "/db", 80);
	cg("/", 4096 * MIB, true);
	cg("/lat", 700 * MIB, true); /* the glob matches its children only */
	cg("/lat/a", 100 * MIB, true);
	cg("/lat/b", 60 * MIB, true);
	cg("/db", 200 * MIB, true);
	cg("/other", 500 * MIB, true);
	cr_assert_eq(zone_demand_bytes(&table, &policies, &n), 50 * MIB + 30 * MIB + 160 * MIB);
	cr_assert_eq(n, 3);
}

Test(zone_demand, a_counted_ancestor_holds_its_descendants_figures)
{
	unsigned n = 0;

	add_policy("lat", "/lat/*", 50);
	add_policy("sib", "/lat-x", 100);
	add_policy("deep", "/plain/g", 25);
	cg("/lat/a", 100 * MIB, true);
	cg("/lat/a/x", 40 * MIB, true); /* in /lat/a's hierarchical anon already */
	cg("/lat/a/x/y", 10 * MIB, true);
	cg("/lat-x", 8 * MIB, true); /* sorts between /lat/a and /lat/a/x by strcmp */
	cg("/plain", 900 * MIB, true);
	cg("/plain/g", 16 * MIB, true); /* its parent holds no guarantee */
	cr_assert_eq(zone_demand_bytes(&table, &policies, &n), 50 * MIB + 8 * MIB + 4 * MIB);
	cr_assert_eq(n, 3);
}

Test(zone_demand, an_unread_cgroup_leaves_its_children_counted)
{
	unsigned n = 0;

	add_policy("all", "/t*", 50);
	cg("/t", 0, false); /* v2 root-like: no memory.stat */
	cg("/t/a", 10 * MIB, true);
	cg("/t/b", 20 * MIB, true);
	cr_assert_eq(zone_demand_bytes(&table, &policies, &n), 15 * MIB);
	cr_assert_eq(n, 2);
}

Test(zone_demand, asks_once_per_interval_and_only_a_block_away)
{
	add_policy("lat", "/lat/*", 50);
	cg("/lat/a", 1024 * MIB, true); /* demand 512 MiB */
	headroom = 256 * MIB;
	nosplit_now = 256 * MIB;

	cr_assert(step(1000), "the first pass looks right away");
	cr_assert_eq(nreqs, 1);
	cr_assert_eq(reqs[0].kind, ACTION_RESIZE_ZONES);
	cr_assert_eq(reqs[0].bytes, 512 * MIB);
	cr_assert_not(reqs[0].dry_run);
	cr_assert(!reqs[0].cgroup || !reqs[0].cgroup[0], "machine-wide: no cgroup");
	cr_assert(strstr(reqs[0].evidence, "THP demand 512 MiB of 1 guaranteed"), "%s",
		  reqs[0].evidence);
	cr_assert(strstr(reqs[0].evidence, "NoSplit 256 MiB, target 768 MiB"), "%s",
		  reqs[0].evidence);

	/* Within the interval nothing is looked at, even if the zone is far off. */
	cr_assert_not(step(1000 + EVERY - 1));
	cr_assert_eq(views, 1);

	nosplit_now = 768 * MIB; /* act reached the target */
	cr_assert_not(step(1000 + EVERY));
	cr_assert_eq(views, 2);

	/* Demand grows by less than a block: not worth a move. */
	cg("/lat/b", 2 * (BLOCK - MIB), true);
	cr_assert_not(step(1000 + 2 * EVERY));
	cr_assert_eq(st.zones.demand_bytes, 512 * MIB + BLOCK - MIB);

	/* And by one block: asked. */
	cg("/lat/c", 2 * MIB, true);
	cr_assert(step(1000 + 3 * EVERY));
	cr_assert_eq(nreqs, 2);
	cr_assert_eq(reqs[1].bytes, 512 * MIB + BLOCK);
	cr_assert_eq(st.zones.requests, 2);
	cr_assert_eq(st.zones.guaranteed, 3);
}

Test(zone_demand, shrinks_too_and_is_dry_run_when_every_policy_is)
{
	struct policy *p = add_policy("lat", "/lat/*", 100);

	p->dry_run = true;
	cg("/lat/a", 128 * MIB, true);
	nosplit_now = 1024 * MIB;
	cr_assert(step(5));
	cr_assert_eq(reqs[0].bytes, 128 * MIB);
	cr_assert(reqs[0].dry_run);
}

Test(zone_demand, nothing_without_any_guarantee_a_view_or_a_tao_kernel)
{
	struct decide_io io = io_for(false);

	cg("/a", 1024 * MIB, true);
	nosplit_now = 4096 * MIB;
	cr_assert_not(step(1000), "no policy holds a guarantee: boot sizes stay");
	cr_assert_eq(views, 0);

	add_policy("lat", "/a", 50);
	decide_tick(&st, &table, 100000, &io);
	cr_assert_eq(nreqs, 0, "a stock kernel has no policy zones");

	io = io_for(true);
	io.zone_view = NULL;
	cr_assert_not(zone_demand_tick(&st.zones, &table, 200000, &io));

	io = io_for(true);
	decide_tick(&st, &table, 300000, &io);
	cr_assert_eq(nreqs, 1, "decide_tick asks on a TAO kernel");
	cr_assert_eq(reqs[0].bytes, 512 * MIB);
}

/* Every tenant's THPs count once (the top-most cgroup read holds its
 * descendants'), guaranteed or not; a guarantee adds only what it promises
 * beyond what its cgroup holds (cg(): thp = anon / 4). */
Test(zone_demand, thp_held_counts_every_tenant_once_and_guarantees_shortfall)
{
	struct thp_held h;

	add_policy("lat", "/lat/*", 50);
	cg("/lat", 0, false); /* no memory.stat: its children count */
	cg("/lat/a", 100 * MIB, true);
	cg("/lat/a/x", 40 * MIB, true);
	cg("/batch", 400 * MIB, true);
	cg("/batch/job", 200 * MIB, true);
	thp_held_sum(&table, &policies, &h);
	cr_assert_eq(h.held_bytes, 25 * MIB + 100 * MIB);
	cr_assert_eq(h.cgroups, 2);
	cr_assert_eq(h.shortfall_bytes, 50 * MIB - 25 * MIB);
	cr_assert_eq(h.guaranteed, 1);
}

/* The peak of the window: a value leaves it one window after it was seen. */
Test(zone_demand, thp_peak_keeps_the_windows_largest)
{
	struct thp_peak p = {0};
	uint64_t w = 64000; /* slices of 1 s */

	thp_peak_add(&p, w, 10000, 900 * MIB);
	thp_peak_add(&p, w, 20000, 20 * MIB);
	cr_assert_eq(thp_peak_max(&p, 20000), 900 * MIB);
	cr_assert_eq(thp_peak_max(&p, 10000 + w - 1), 900 * MIB);
	cr_assert_eq(thp_peak_max(&p, 10000 + w), 20 * MIB);
	thp_peak_add(&p, w, 10000 + 2 * w, 5 * MIB); /* reuses the 900 MiB slot */
	cr_assert_eq(thp_peak_max(&p, 10000 + 2 * w), 5 * MIB);
}
