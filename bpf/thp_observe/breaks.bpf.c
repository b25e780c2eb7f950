// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * Breaks told at the partial map (6.12+, where fentry is allowed, in every
 * mode): a PMD THP is broken when a PTE unmap leaves it partly mapped,
 * whatever split its PMD before. An mremap that moves a THP to an
 * unaligned address, or an mprotect of part of it, splits the PMD but
 * keeps every page mapped: no break. A THP left partly mapped whose rest
 * is freed within taod_cfg.break_settle_ns (a heap trim the next trim or
 * the exit completes, an unaligned range unmapped one page table at a
 * time) broke nothing lasting either: the break waits that long in
 * pending_breaks, and the folio's free drops it. The daemon settles what
 * waited long enough once per tick (settle_breaks).
 */
#include "shared.bpf.h"

/* Keyed by folio address. Full: a break is counted at once, unsettled. */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, TAOD_PENDING_BREAKS);
	__type(key, __u64);
	__type(value, struct taod_anon_event);
} pending_breaks SEC(".maps");

/* Not autoloaded: the daemon enables it with taod_cfg.breaks_at_partial. */
SEC("?fentry/deferred_split_folio")
int BPF_PROG(on_partial_pmd, struct folio *folio, bool partially_mapped)
{
	struct taod_anon_event e = {}, *old;
	__u64 key = (__u64)folio;

	if (newly_partial_order(folio, partially_mapped) != taod_cfg.pmd_order)
		return 0;
	e.cgroup_id = folio_memcg_id(folio);
	if (!e.cgroup_id)
		return 0;
	e.ts_ns = bpf_ktime_get_ns();
	e.pages = -(int)taod_cfg.pmd_pages;
	e.cause = split_cause();
	if (current_owns(e.cgroup_id))
		e.tgid = current_mm_tgid(e.comm);
	old = bpf_map_lookup_elem(&pending_breaks, &key);
	if (old) /* the folio was reused unseen: its last partial map lasted */
		count_break(old);
	if (bpf_map_update_elem(&pending_breaks, &key, &e, BPF_ANY))
		count_break(&e);
	sample_stack(ctx, e.tgid, e.cause);
	return 0;
}

/* A folio on the deferred-split queue is freed (or migrated): a partial
 * map still pending did not last. Reached for queued folios only. */
SEC("?fentry/__folio_unqueue_deferred_split")
int BPF_PROG(on_partial_freed, struct folio *folio)
{
	__u64 key = (__u64)folio;

	bpf_map_delete_elem(&pending_breaks, &key);
	return 0;
}

static long settle_one(struct bpf_map *map, __u64 *key, struct taod_anon_event *e, __u64 *now)
{
	if (*now - e->ts_ns < taod_cfg.break_settle_ns)
		return 0;
	count_break(e);
	bpf_map_delete_elem(map, key);
	return 0;
}

/* Run by the daemon once per tick (BPF_PROG_TEST_RUN): the partial maps
 * that outlived the settle time are breaks. At most TAOD_PENDING_BREAKS. */
SEC("raw_tp/taod_settle_breaks")
int settle_breaks(void *ctx)
{
	__u64 now = bpf_ktime_get_ns();

	bpf_for_each_map_elem(&pending_breaks, settle_one, &now, 0);
	return 0;
}
