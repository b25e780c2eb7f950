// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * Multi-size THP: large anonymous folios of every order, counted as the
 * kernel counts them per size (hugepages-<N>kB/stats), per memcg of the
 * folio and per task that owns that memory. Not autoloaded: the daemon
 * enables them where fentry is allowed and BTF has the functions.
 *
 * fentry on folio_add_new_anon_rmap (faults), deferred_split_folio (6.12+:
 * partial maps), the folio split function (6.12+ split by order: splits
 * per size) and the memcg uncharge (folios held per size): the kernels
 * count mTHP nowhere a tracepoint sees, so these need fentry, and the
 * fault and uncharge programs run only while an mTHP size is enabled.
 */
#include "sizes.bpf.h"

/* Folios held as anonymous memory by @memcg (struct taod_cg_sizes nr_anon). */
static __always_inline void anon_folios_add(struct mem_cgroup *memcg, __u32 order, __s64 n)
{
	if (taod_cfg.size_held)
		gauge_add(memcg, order, n, false);
}

/* Whether @folio is partly mapped (6.12+: PG_partially_mapped, a flag of
 * its second page, set while it waits on the deferred split queue). */
static __always_inline bool folio_partly_mapped(struct folio *folio)
{
	if (!taod_cfg.partial_gauge ||
	    !bpf_core_enum_value_exists(enum pageflags, PG_partially_mapped))
		return false;
	return folio_flags(folio, true) &
	       (1UL << bpf_core_enum_value(enum pageflags, PG_partially_mapped));
}

/*
 * A folio leaves its memcg (freed): if it is a large anonymous one, its
 * memcg holds one folio of its size fewer. The kernel's nr_anon drops in
 * the free path itself, which is inlined; the memcg uncharge is the last
 * call that still sees the folio's memcg.
 */
static __always_inline void anon_folio_released(struct folio *folio)
{
	__u32 order = folio_order_of(folio);

	if (order < 2 || order > taod_cfg.pmd_order || !folio_is_anon(folio))
		return;
	anon_folios_add(folio_memcg(folio), order, -1);
}

/*
 * A new anonymous folio mapped by a user task's fault: the kernel counts
 * anon_fault_alloc of its size just before this call. Every anonymous
 * fault comes here, a base page's too (no function only large folios
 * reach is left on 7.x with init_on_alloc), so the daemon attaches it
 * only while an mTHP size is enabled, and a base page returns at the
 * first test. Orders 2..PMD-1 only: PMD THPs are counted on their paths,
 * khugepaged's collapses are not faults.
 */
SEC("?fentry/folio_add_new_anon_rmap")
int BPF_PROG(on_new_anon_rmap, struct folio *folio)
{
	__u32 order = folio_order_of(folio);
	struct mem_cgroup *memcg;

	if (order < 2 || order > taod_cfg.pmd_order)
		return 0;
	memcg = folio_memcg(folio);
	anon_folios_add(memcg, order, 1);
	if (order == taod_cfg.pmd_order)
		return 0;
	if (bpf_get_current_task_btf()->flags & TAOD_PF_KTHREAD)
		return 0;
	count_size(memcg, order, SIZE_FAULT_ALLOC);
	return 0;
}

/*
 * 6.12+: a large anonymous folio is queued for deferred split. With
 * @partially_mapped, the first time (the flag not yet set), it is a folio
 * a PTE unmap left partially mapped: the kernel's split_deferred.
 * Reached for large folios only.
 */
SEC("?fentry/deferred_split_folio")
int BPF_PROG(on_deferred_split, struct folio *folio, bool partially_mapped)
{
	int pm = bpf_core_enum_value(enum pageflags, PG_partially_mapped);
	__u32 order;

	if (!partially_mapped)
		return 0;
	order = folio_order_of(folio);
	if (order < 2)
		return 0;
	if (folio_in_swapcache(folio)) /* the kernel skips those */
		return 0;
	if (folio_flags(folio, true) & (1UL << pm)) /* counted already */
		return 0;
	count_size(folio_memcg(folio), order, SIZE_PARTIAL);
	partial_folios_add(folio_memcg(folio), order, 1);
	return 0;
}

/*
 * 6.13+: a large folio leaves the deferred split queue, as it is freed or
 * migrated (its memcg still set): if partly mapped, its memcg strands one
 * fewer (this call clears the flag; a split clears it inline, below).
 */
SEC("?fentry/__folio_unqueue_deferred_split")
int BPF_PROG(on_unqueue_deferred, struct folio *folio)
{
	if (folio_partly_mapped(folio))
		partial_folios_add(folio_memcg(folio), folio_order_of(folio), -1);
	return 0;
}

/* A folio split starts: what the folios held per size need at its end. */
static __always_inline void size_split_note(void *ctx, struct thp_path_ctx *x, struct folio *folio)
{
	__u64 new_order = 0;

	bpf_get_func_arg(ctx, taod_cfg.split_new_order_arg, &new_order);
	x->size_split_new_order = (__u32)new_order;
	x->size_split_anon = folio_is_anon(folio);
	x->size_split_partial = folio_partly_mapped(folio);
}

/* A split of an anonymous folio of @order into folios of new_order
 * succeeded: its memcg holds one folio of @order fewer, and 2^(order -
 * new_order) of new_order more (none below order 2). */
static __always_inline void size_split_done(struct thp_path_ctx *x, __u32 order)
{
	struct mem_cgroup *memcg = (struct mem_cgroup *)x->size_split_memcg;
	__u32 to = x->size_split_new_order;

	if (x->size_split_partial)
		partial_folios_add(memcg, order, -1);
	if (!x->size_split_anon)
		return;
	anon_folios_add(memcg, order, -1);
	if (to >= 2 && to < order)
		anon_folios_add(memcg, to, 1LL << (order - to));
}

/* A folio split starts (__folio_split or split_huge_page_to_list_to_order,
 * set by the daemon): note its order and memcg, for the exit. */
SEC("?fentry/__folio_split")
int BPF_PROG(on_size_split_enter, void *page_or_folio)
{
	struct folio *folio = head_folio(page_or_folio);
	struct thp_path_ctx *x = path_ctx(true);

	if (!x)
		return 0;
	x->size_split_order = folio_order_of(folio);
	x->size_split_memcg = (__u64)folio_memcg(folio);
	size_split_note(ctx, x, folio);
	return 0;
}

/* ... and ends: a success (0) is the kernel's split of that size. */
SEC("?fexit/__folio_split")
int BPF_PROG(on_size_split_exit, void *page_or_folio)
{
	struct thp_path_ctx *x = path_ctx(false);
	__u32 order;
	__u64 ret = 1;

	if (!x || !x->size_split_order)
		return 0;
	order = x->size_split_order;
	x->size_split_order = 0;
	bpf_get_func_ret(ctx, &ret);
	if ((int)ret == 0 && order >= 2) {
		count_size((struct mem_cgroup *)x->size_split_memcg, order, SIZE_SPLIT);
		size_split_done(x, order);
	}
	return 0;
}

/*
 * Folios freed one at a time (folio_put) and in batches (the unmap and
 * reclaim paths): large anonymous ones leave the per-size count. These
 * run for every charged folio freed, base pages too (no free path only
 * large folios reach keeps its memcg), so the daemon attaches them only
 * with the fault program, while an mTHP size is enabled; a fault runs
 * neither.
 */
SEC("?fentry/__mem_cgroup_uncharge")
int BPF_PROG(on_uncharge, struct folio *folio)
{
	anon_folio_released(folio);
	return 0;
}

SEC("?fentry/__mem_cgroup_uncharge_folios")
int BPF_PROG(on_uncharge_folios, struct folio_batch *fbatch)
{
	__u32 nr = BPF_CORE_READ(fbatch, nr);

	for (__u32 i = 0; i < 31 && i < nr; i++) {
		struct folio *folio = NULL;

		bpf_probe_read_kernel(&folio, sizeof(folio), &fbatch->folios[i]);
		if (folio)
			anon_folio_released(folio);
	}
	return 0;
}

/*
 * 7.3+: the tracepoint has the order, khugepaged collapses into sizes below
 * the PMD's too (the daemon loads this or on_collapse, as the kernel's BTF
 * gives the tracepoint 4 arguments or 3). The PMD order is counted as
 * on_collapse counts it. An order below is the per-size event `collapse`,
 * counted as the kernel counts that size's collapse_alloc
 * (hugepages-<N>kB/stats, alloc_charge_folio): once the folio is
 * allocated, before the memcg charge, so a charge or a collapse that fails
 * after it counts too; the one status before it is the allocation's
 * failure (collapse_alloc_failed). Charged to the mm's owner's memcg and
 * to the owner's own per-size counts (khugepaged owns none of it).
 */
SEC("?tp_btf/mm_collapse_huge_page")
int BPF_PROG(on_collapse_order, struct mm_struct *mm, int isolated, int status, unsigned int order)
{
	static const struct taod_task_sizes zero;
	struct task_struct *owner;
	struct cgroup_subsys_state *css;
	struct taod_task_sizes *t;
	struct taod_cg_sizes *s;
	__u32 tgid;
	__u64 cgid;

	if (order == taod_cfg.pmd_order)
		return count_pmd_collapse(mm, isolated, status);
	stat_inc(TAOD_STAT_MTHP_EVENTS);
	if (order < 2 || order >= TAOD_MAX_ORDER || order > taod_cfg.pmd_order ||
	    status == bpf_core_enum_value(enum scan_result, SCAN_ALLOC_HUGE_PAGE_FAIL))
		return 0;
	owner = BPF_CORE_READ(mm, owner);
	css = task_memcg_css(owner);
	cgid = css_cgid(css);
	s = cgid ? sizes_get(cgid, css) : NULL;
	if (s)
		__sync_fetch_and_add(&s->collapse[order], 1);
	tgid = owner ? BPF_CORE_READ(owner, tgid) : 0;
	if (!tgid)
		return 0;
	bpf_map_update_elem(&task_sizes, &tgid, &zero, BPF_NOEXIST);
	t = bpf_map_lookup_elem(&task_sizes, &tgid);
	if (t)
		__sync_fetch_and_add(&t->collapse[order], 1);
	return 0;
}
