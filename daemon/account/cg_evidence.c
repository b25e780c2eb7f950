// SPDX-License-Identifier: GPL-2.0
/*
 * A cgroup's evidence for the verdict: THP bytes given and broken, from its
 * own BPF counters and per-size counts, and added up when removed cgroups
 * fold into their ancestor or a tenant sums its subtree.
 */
#include <stddef.h>
#include <string.h>
#include <unistd.h>

#include "cg_evidence.h"
#include "observe/size_events.h"
#include "size_held.h"

uint64_t cg_thp_allocs(const struct taod_cg_counters *c)
{
	return c->thp_fault_alloc + c->thp_collapse_alloc;
}

void cg_evidence_of(const struct taod_cg_counters *c, struct cg_evidence *out)
{
	out->thp_alloc = cg_thp_allocs(c);
	out->thp_fault = c->thp_fault_alloc;
	out->pmd_split = c->pmd_split;
	out->split_pages = c->pmd_split_pages;
	out->fault_fallback = c->thp_fault_fallback;
	out->mthp_alloc_bytes = out->mthp_broken_bytes = 0;
	out->partly_mapped_thps = out->partly_mapped_mthp_bytes = 0;
	out->partly_counted = false;
}

void cg_evidence_add(struct cg_evidence *to, const struct cg_evidence *e)
{
	to->thp_alloc += e->thp_alloc;
	to->thp_fault += e->thp_fault;
	to->pmd_split += e->pmd_split;
	to->split_pages += e->split_pages;
	to->mthp_alloc_bytes += e->mthp_alloc_bytes;
	to->mthp_broken_bytes += e->mthp_broken_bytes;
	to->fault_fallback += e->fault_fallback;
	to->partly_mapped_thps += e->partly_mapped_thps;
	to->partly_mapped_mthp_bytes += e->partly_mapped_mthp_bytes;
}

/*
 * The bytes of the folios below the PMD size made (faulted or collapsed:
 * given to the tenant as a fault or a collapse gives a PMD THP), and of those left
 * partially mapped (a split that follows one breaks nothing more; one
 * without is reclaim's or taod's, not the tenant's unmapping).
 */
static void sizes_evidence(const struct taod_cg_sizes *s, struct cg_evidence *out)
{
	static const struct taod_cg_sizes none;
	uint64_t page = (uint64_t)sysconf(_SC_PAGESIZE);
	uint64_t pmd = page * (page / 8); /* a page table of 8-byte entries */

	/* Every tick for every cgroup, and most have no per-size event. */
	if (!memcmp(s, &none, offsetof(struct taod_cg_sizes, nr_anon)))
		return;

	for (int order = 2; order < TAOD_MAX_ORDER && (page << order) < pmd; order++) {
		out->mthp_alloc_bytes += size_made(s, order) * (page << order);
		out->mthp_broken_bytes += s->partial[order] * (page << order);
	}
}

/* The folios partly mapped now: the entry's own and its removed
 * descendants' still counted (a gauge: never folded). */
static void partly_evidence(const struct cgroup_entry *e, struct cg_evidence *out)
{
	int pmd_order = size_pmd_order();

	for (int order = 2; order < pmd_order; order++)
		out->partly_mapped_mthp_bytes +=
		    size_partial_folios(e, order) * size_kb_of(order) * 1024;
	out->partly_mapped_thps = size_partial_folios(e, pmd_order);
}

void cgroup_entry_evidence(const struct cgroup_entry *e, struct cg_evidence *out)
{
	cg_evidence_of(&e->counters, out);
	sizes_evidence(&e->sizes, out);
	partly_evidence(e, out);
	cg_evidence_add(out, &e->folded);
}
