// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * Folios partly mapped now, on kernels whose folios carry no flag for it
 * (before 6.12: 6.1, 6.6 and the TAO kernel). There a large anonymous
 * folio joins the deferred split queue only when an unmap leaves part of
 * it mapped, and leaves the queue when it is split (or shattered) or
 * freed. queued_folios mirrors the queue: a folio counts in its memcg's
 * nr_partial from the call that queues it to the call that takes it off,
 * so the daemon judges what lasts as it does on 6.12+. Not autoloaded:
 * the daemon attaches these where fentry is allowed and BTF has the
 * functions, and sets their targets (6.1's names in brackets).
 */
#include "sizes.bpf.h"

struct queued_folio {
	__u64 cgid; /* the memcg charged when it was queued */
	__u32 order;
	__u32 pad;
};

/* Key: the folio's address. A hash, not an LRU: an entry evicted would
 * stay in its cgroup's gauge for good; one refused is counted instead. */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__uint(max_entries, TAOD_MAX_QUEUED_FOLIOS);
	__type(key, __u64);
	__type(value, struct queued_folio);
} queued_folios SEC(".maps");

/* @folio left the queue: its memcg has one folio partly mapped fewer. */
static __always_inline void queued_folio_gone(struct folio *folio)
{
	__u64 key = (__u64)folio;
	struct queued_folio *q = bpf_map_lookup_elem(&queued_folios, &key);
	struct queued_folio gone;

	if (!q)
		return;
	gone = *q;
	if (!bpf_map_delete_elem(&queued_folios, &key)) /* one CPU wins */
		gauge_add_id(gone.cgid, NULL, gone.order, -1, true);
}

/*
 * deferred_split_folio (deferred_split_huge_page): an unmap left @folio
 * partly mapped. The kernel queues it unless it is in the swap cache or
 * queued already; BPF_NOEXIST is the second test (and a folio queued
 * before taod started counts from its next partial unmap).
 */
SEC("?fentry/deferred_split_folio")
int BPF_PROG(on_partial_queued, void *page_or_folio)
{
	struct folio *folio = head_folio(page_or_folio);
	struct queued_folio q = {.order = folio_order_of(folio)};
	struct mem_cgroup *memcg;
	__u64 key = (__u64)folio;
	long r;

	if (q.order < 2 || q.order >= TAOD_MAX_ORDER || !folio_is_anon(folio) ||
	    folio_in_swapcache(folio))
		return 0;
	memcg = folio_memcg(folio);
	q.cgid = memcg ? memcg_id(memcg) : 0;
	if (!q.cgid)
		return 0;
	r = bpf_map_update_elem(&queued_folios, &key, &q, BPF_NOEXIST);
	if (!r) { /* the kernel's split_deferred, and one more partly mapped */
		count_size(memcg, q.order, SIZE_PARTIAL);
		gauge_add_id(q.cgid, &memcg->css, q.order, 1, true);
	} else if (r != -17 /* EEXIST: queued already */)
		stat_inc(TAOD_STAT_QUEUED_FOLIOS_FULL);
	return 0;
}

/* folio_undo_large_rmappable (free_transhuge_page): a large folio is
 * freed, or (6.6) migrated away, and taken off the queue if it was on it. */
SEC("?fentry/folio_undo_large_rmappable")
int BPF_PROG(on_partial_freed, void *page_or_folio)
{
	queued_folio_gone(head_folio(page_or_folio));
	return 0;
}

/* A folio split starts (the split function the daemon found): note the
 * folio, which the page given may only be a tail page of. */
SEC("?fentry/split_huge_page_to_list")
int BPF_PROG(on_partial_split_enter, void *page_or_folio)
{
	struct thp_path_ctx *x = path_ctx(true);

	if (x)
		x->queued_split_folio = (__u64)head_folio(page_or_folio);
	return 0;
}

/* ... and ends: a split (0) or, on the TAO kernel, a shatter (1) took the
 * folio off the queue; a failure (negative) left it there. */
SEC("?fexit/split_huge_page_to_list")
int BPF_PROG(on_partial_split_exit, void *page_or_folio)
{
	struct thp_path_ctx *x = path_ctx(false);
	__u64 folio, ret = (__u64)-1;

	if (!x || !x->queued_split_folio)
		return 0;
	folio = x->queued_split_folio;
	x->queued_split_folio = 0;
	bpf_get_func_ret(ctx, &ret);
	if ((int)ret >= 0)
		queued_folio_gone((struct folio *)folio);
	return 0;
}
