// SPDX-License-Identifier: GPL-2.0
/*
 * What an action costs (action_cost.h). Thread CPU time counts the system
 * time of the writes too: compaction through /proc/sys/vm/compact_memory
 * and a debugfs split run in taod's thread, so they are charged to it.
 */
#include <string.h>
#include <time.h>

#include "action_cost.h"
#include "free_blocks.h"
#include "account/memstat.h"
#include "common/rootfs.h"

#define VMSTAT_MAX (1 << 16)

static uint64_t clock_us(clockid_t id)
{
	struct timespec ts;

	if (clock_gettime(id, &ts))
		return 0;
	return (uint64_t)ts.tv_sec * 1000000 + (uint64_t)ts.tv_nsec / 1000;
}

void cost_clock_start(struct cost_clock *c)
{
	c->cpu_us = clock_us(CLOCK_THREAD_CPUTIME_ID);
	c->wall_us = clock_us(CLOCK_MONOTONIC);
}

static uint64_t since(uint64_t start, uint64_t now)
{
	return now > start ? now - start : 0;
}

void cost_clock_charge(struct action_cost *cost, enum action_phase p, const struct cost_clock *c)
{
	if (!cost || (unsigned)p >= PHASE_MAX)
		return;
	cost->cpu_us[p] += since(c->cpu_us, clock_us(CLOCK_THREAD_CPUTIME_ID));
	cost->wall_us[p] += since(c->wall_us, clock_us(CLOCK_MONOTONIC));
}

void cost_vmstat_parse(const char *text, struct cost_vmstat *out)
{
	memset(out, 0, sizeof(*out));
	for (unsigned i = 0; i < COST_NCOUNTERS; i++)
		if (!kv_lookup_u64(text, cost_counter_name(i), &out->v[i]))
			out->present |= 1u << i;
}

void cost_kernel_delta(struct action_cost *cost, const struct cost_vmstat *before,
		       const struct cost_vmstat *after)
{
	cost->kernel_present = before->present & after->present;
	for (unsigned i = 0; i < COST_NCOUNTERS; i++)
		cost->kernel[i] =
		    cost->kernel_present & (1u << i) ? since(before->v[i], after->v[i]) : 0;
}

void cost_lever_from_total(struct action_cost *cost, uint64_t total_cpu_us, uint64_t total_wall_us)
{
	uint64_t cpu = cost->cpu_us[PHASE_COMPACTION] + cost->cpu_us[PHASE_DRAIN];
	uint64_t wall = cost->wall_us[PHASE_COMPACTION] + cost->wall_us[PHASE_DRAIN];

	cost->cpu_us[PHASE_LEVER] = since(cpu, total_cpu_us);
	cost->wall_us[PHASE_LEVER] = since(wall, total_wall_us);
}

/* false when vmstat cannot be read (a fixture root without one). */
static bool read_vmstat(const struct kernel_paths *k, struct cost_vmstat *out)
{
	static char text[VMSTAT_MAX];
	ssize_t n = rootfs_read(k->vmstat, text, sizeof(text));

	if (n < 0) {
		memset(out, 0, sizeof(*out));
		return false;
	}
	cost_vmstat_parse(text, out);
	return true;
}

void action_cost_begin(struct cost_run *r, const struct kernel_paths *k, struct action_cost *cost)
{
	memset(cost, 0, sizeof(*cost));
	cost->free_known = !free_thp_blocks(k, &cost->free_pmd_before);
	r->vmstat_ok = read_vmstat(k, &r->before);
	/* Last: the reads above are the measurement's, not the action's. */
	cost_clock_start(&r->clock);
}

void action_cost_end(struct cost_run *r, const struct kernel_paths *k, struct action_cost *cost)
{
	struct cost_clock total;
	struct cost_vmstat after;

	cost_clock_start(&total);
	cost_lever_from_total(cost, since(r->clock.cpu_us, total.cpu_us),
			      since(r->clock.wall_us, total.wall_us));
	if (r->vmstat_ok && read_vmstat(k, &after))
		cost_kernel_delta(cost, &r->before, &after);
	if (cost->free_known)
		cost->free_known = !free_thp_blocks(k, &cost->free_pmd_after);
	cost->measured = true;
}
