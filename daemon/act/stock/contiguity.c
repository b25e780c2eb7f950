// SPDX-License-Identifier: GPL-2.0
/*
 * After a stock shatter: turn the freed subpages into free 2 MiB blocks.
 * Splitting an abuser's partly mapped THPs frees the pages it no longer
 * maps, but a good tenant that faults without MADV_HUGEPAGE (no direct
 * compaction) only gets THPs from free order-9 blocks. Two things stand in
 * the way (measured in the kernel lab, tests/vm): the pages the abuser
 * still maps sit in the middle of those blocks, which compaction moves;
 * and freed pages wait in the per-CPU free lists, where they cannot merge
 * with their buddies, until those lists are drained. The only stock way to
 * drain another CPU's list from userspace: lower its high mark
 * (vm.percpu_pagelist_high_fraction) and free pages on that CPU, which
 * makes the kernel hand the surplus back to the buddy allocator.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "contiguity.h"
#include "act/read/proc_tasks.h"
#include "act/gate/action_cost.h"
#include "common/keepalive.h"
#include "common/log.h"
#include "common/rootfs.h"

/* Large enough that every zone's per-CPU high mark falls to its floor. */
#define DRAIN_FRACTION "1073741824"
/* Freed on each CPU: well above any floor (4 batches of at most 63 pages). */
#define DRAIN_BYTES (4UL << 20)

/* Allocates and frees DRAIN_BYTES of base pages on the calling CPU. */
static int churn_here(void)
{
	char *p =
	    mmap(NULL, DRAIN_BYTES, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED)
		return -errno;
	madvise(p, DRAIN_BYTES, MADV_NOHUGEPAGE);
	for (size_t off = 0; off < DRAIN_BYTES; off += 4096)
		p[off] = 1;
	munmap(p, DRAIN_BYTES);
	return 0;
}

/* Frees pages on each CPU taod may run on; returns how many, or -errno. */
static int churn_every_cpu(void)
{
	cpu_set_t allowed, one;
	int done = 0, r = 0;

	if (sched_getaffinity(0, sizeof(allowed), &allowed))
		return -errno;
	for (int cpu = 0; cpu < CPU_SETSIZE; cpu++) {
		if (!CPU_ISSET(cpu, &allowed))
			continue;
		CPU_ZERO(&one);
		CPU_SET(cpu, &one);
		if (sched_setaffinity(0, sizeof(one), &one)) {
			r = -errno;
			continue;
		}
		if (!churn_here())
			done++;
		keepalive_ping(); /* a host with many CPUs takes a while */
	}
	if (sched_setaffinity(0, sizeof(allowed), &allowed))
		log_errno(LOG_WARNING, -errno, "restoring taod's CPU affinity");
	return done ? done : r;
}

/*
 * Lowers the per-CPU high marks, frees pages on every CPU, and puts the
 * old fraction back. Fixture roots get the sysctl writes only.
 */
static int drain_percpu_lists(const struct kernel_paths *k, int *cpus)
{
	char path[PATH_MAX], old[32];
	ssize_t n;
	int r;

	*cpus = 0;
	if (rootfs_path(path, sizeof(path), k->percpu_pagelist_high_fraction))
		return -ENAMETOOLONG;
	n = read_file(path, old, sizeof(old));
	if (n < 0)
		return (int)n;
	old[strcspn(old, " \n")] = '\0';
	r = write_file(path, DRAIN_FRACTION);
	if (r)
		return r;
	if (pids_are_real())
		*cpus = churn_every_cpu();
	r = write_file(path, old[0] ? old : "0");
	if (r)
		log_warn("%s: putting back %s: %s", path, old, strerror(-r));
	return *cpus < 0 ? *cpus : r;
}

static int compact_all(const struct kernel_paths *k)
{
	char path[PATH_MAX];

	if (rootfs_path(path, sizeof(path), k->compact_memory))
		return -ENAMETOOLONG;
	return write_file(path, "1");
}

/* One drain, its time charged to the drain phase. */
static int timed_drain(const struct kernel_paths *k, int *cpus, struct action_cost *cost)
{
	struct cost_clock c;
	int r;

	cost_clock_start(&c);
	r = drain_percpu_lists(k, cpus);
	cost_clock_charge(cost, PHASE_DRAIN, &c);
	keepalive_ping();
	return r;
}

int contiguity_restore(const struct kernel_paths *k, struct action_cost *cost, char *note,
		       size_t len)
{
	int cpus = 0, first, compacted, second;
	struct cost_clock c;

	first = timed_drain(k, &cpus, cost);
	cost_clock_start(&c);
	compacted = compact_all(k);
	cost_clock_charge(cost, PHASE_COMPACTION, &c);
	keepalive_ping();
	second = timed_drain(k, &cpus, cost);
	snprintf(note, len, "%s; %s", compacted ? "compaction failed" : "compacted memory",
		 second ? "draining per-CPU lists failed" : "drained per-CPU lists");
	if (!second && cpus > 0)
		snprintf(note + strlen(note), len - strlen(note), " on %d CPUs", cpus);
	if (compacted)
		log_warn("%s: %s", k->compact_memory, strerror(-compacted));
	if (first || second)
		log_warn("draining per-CPU lists via %s: %s", k->percpu_pagelist_high_fraction,
			 strerror(-(first ? first : second)));
	return compacted ? compacted : first ? first : second;
}

/* Why no compaction may follow now; NULL when it may. */
static const char *gate_closed(const struct act_ctx *c, uint64_t split_bytes, char *buf, size_t len)
{
	const struct compact_gate *g = c->compact;
	uint64_t now;

	if (!split_bytes)
		return "no compaction: nothing was split";
	if (!g)
		return NULL;
	if (g->pressure == PRESSURE_NONE && !g->wanting)
		return "no compaction: no contiguity pressure, no tenant wanting";
	now = c->now_ms();
	if (g->last_ms && now - g->last_ms < c->s->compact_interval_ms) {
		snprintf(buf, len,
			 "no compaction: the last was %llu ms ago (compact_interval %llu ms)",
			 (unsigned long long)(now - g->last_ms),
			 (unsigned long long)c->s->compact_interval_ms);
		return buf;
	}
	return NULL;
}

int contiguity_after_shatter(const struct act_ctx *c, uint64_t split_bytes, char *note, size_t len)
{
	char buf[128];
	const char *why;

	note[0] = '\0';
	if (!c->s->compact_after_shatter)
		return 0;
	why = gate_closed(c, split_bytes, buf, sizeof(buf));
	if (why) {
		snprintf(note, len, "%s", why);
		return 0;
	}
	if (c->compact)
		c->compact->last_ms = c->now_ms() ? c->now_ms() : 1;
	return contiguity_restore(c->k, c->cost, note, len);
}
