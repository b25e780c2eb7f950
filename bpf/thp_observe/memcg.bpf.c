// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * Memcg events, one of (the daemon's attach plan picks, from BTF):
 *   memcg:count_memcg_events     THP_FAULT_ALLOC, THP_FAULT_FALLBACK,
 *                                THP_COLLAPSE_ALLOC per memcg (6.13+)
 *   memcg:mod_memcg_lruvec_state NR_ANON_THPS / NR_ANON_MAPPED deltas, from
 *                                which PMD splits are told from whole unmaps
 *   or, before 6.13, fentry on __count_memcg_events and
 *   __mod_memcg_lruvec_state with the same handlers.
 * None of them loads in THP paths mode (thp_paths.bpf.c), which takes the
 * same events where the kernel handles huge pages instead.
 * A raw tracepoint the daemon runs itself each tick settles the
 * NR_ANON_THPS drops that no NR_ANON_MAPPED update paired.
 * kmem:mm_page_alloc: large movable folios by order, attached only while an
 * mTHP size is enabled.
 */
#include "shared.bpf.h"

/*
 * CPUs holding an unpaired NR_ANON_THPS drop. A plain global, not a map:
 * base-page NR_ANON_MAPPED updates are rejected on this load alone while
 * it is zero, which it is except for the moment after a split.
 */
int pending_cpus;

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct taod_unmap_state);
} unmap_state SEC(".maps");

/* A PMD-sized (or larger) stat delta: the only ones about PMD mappings. */
static __always_inline bool pmd_sized(int val)
{
	return val <= -(int)taod_cfg.pmd_pages || val >= (int)taod_cfg.pmd_pages;
}

static __always_inline int handle_memcg_event(struct mem_cgroup *memcg, int item, unsigned long val)
{
	struct taod_cg_counters *c;
	struct taod_task_counters *t = NULL;
	__u64 cgid;

	if (item != bpf_core_enum_value(enum vm_event_item, THP_FAULT_ALLOC) &&
	    item != bpf_core_enum_value(enum vm_event_item, THP_FAULT_FALLBACK) &&
	    item != bpf_core_enum_value(enum vm_event_item, THP_COLLAPSE_ALLOC))
		return 0;
	stat_inc(TAOD_STAT_MEMCG_EVENTS);
	cgid = memcg_id(memcg);
	c = cg_get(cgid, &memcg->css);
	if (!c)
		return 0;
	if (item == bpf_core_enum_value(enum vm_event_item, THP_FAULT_ALLOC)) {
		c->thp_fault_alloc += val;
		t = current_owns(cgid) ? current_task_get(cgid) : NULL;
		if (t)
			t->thp_fault_alloc += val;
	} else if (item == bpf_core_enum_value(enum vm_event_item, THP_FAULT_FALLBACK)) {
		c->thp_fault_fallback += val;
		return 0;
	} else {
		c->thp_collapse_alloc += val;
	}
	if (taod_cfg.folio_alloc_from_events && taod_cfg.pmd_order < TAOD_MAX_ORDER)
		c->folio_alloc[taod_cfg.pmd_order] += val;
	return 0;
}

/*
 * A whole unmap updates NR_ANON_THPS and NR_ANON_MAPPED by the same number
 * of pages back to back, on one CPU, under the page-table lock; which of
 * the two comes first differs between kernel versions. A PMD split drops
 * NR_ANON_THPS alone (its pages stay mapped by PTEs). The two updates are
 * microseconds apart on bare metal; an interrupt, a preempted vCPU or
 * emulation can stretch that, so they pair within [kernel]
 * unmap_pair_window (1 ms), the age at which the flush settles a split.
 */
static __always_inline bool pairs_with(const struct taod_anon_event *e, int val, __u64 cgid,
				       __u64 now)
{
	return e->pages == val && e->cgroup_id == cgid &&
	       now - e->ts_ns < taod_cfg.stale_pending_ns;
}

/* Remembers a PMD-sized drop, and its memory's process if the task owns it. */
static __always_inline void remember(struct taod_anon_event *e, int val, __u64 cgid, __u64 now)
{
	e->cgroup_id = cgid;
	e->ts_ns = now;
	e->pages = val;
	e->tgid = 0;
	if (current_owns(cgid))
		e->tgid = current_mm_tgid(e->comm);
}

/*
 * MADV_FREE or MADV_PAGEOUT of part of a THP splits the whole folio: its
 * PMD turns into migration entries and NR_ANON_THPS and NR_ANON_MAPPED drop
 * together, as for a whole unmap. Those advices never zap a PMD, so under
 * them a drop of both is the split the kernel counts in thp_split_pmd.
 */
static __always_inline bool splits_whole_folio(__u32 cause)
{
	return cause == TAOD_CAUSE_MADV_FREE || cause == TAOD_CAUSE_MADV_PAGEOUT;
}

static __always_inline void set_pending(void *ctx, struct taod_unmap_state *st, int val, __u64 cgid,
					__u64 now)
{
	if (!st->pending.pages)
		__sync_fetch_and_add(&pending_cpus, 1);
	remember(&st->pending, val, cgid, now);
	/* Whatever settles it later (the next update, the flush) runs in
	 * another context: the cause is the one in progress now. */
	st->pending.cause = st->pending.tgid ? split_cause() : TAOD_CAUSE_OTHER;
	/* Sampled now, in the task: a drop left pending is most often a split. */
	sample_stack(ctx, st->pending.tgid, st->pending.cause);
}

static __always_inline void clear_pending(struct taod_unmap_state *st)
{
	if (st->pending.pages)
		__sync_fetch_and_add(&pending_cpus, -1);
	st->pending.pages = 0;
}

static __always_inline int handle_lruvec_state(void *ctx, struct mem_cgroup *memcg, int item,
					       int val)
{
	int anon_thps = bpf_core_enum_value(enum node_stat_item, NR_ANON_THPS);
	int anon_mapped = bpf_core_enum_value(enum node_stat_item, NR_ANON_MAPPED);
	struct taod_unmap_state *st;
	__u64 cgid, now;
	__u32 zero = 0;

	/*
	 * First test, no map access: a base-page NR_ANON_MAPPED update matters
	 * only while some CPU holds an unpaired THPS drop it may settle. Other
	 * items can come from interrupts between the two updates.
	 */
	if (item == anon_mapped ? !pmd_sized(val) && !pending_cpus : item != anon_thps)
		return 0;
	stat_inc(TAOD_STAT_LRUVEC_EVENTS);
	st = bpf_map_lookup_elem(&unmap_state, &zero);
	if (!st)
		return 0;
	cgid = memcg_id(memcg);
	now = bpf_ktime_get_ns();
	if (st->pending.pages) {
		/* THPS came first: this MAPPED update decides. */
		bool pair = item == anon_mapped && pairs_with(&st->pending, val, cgid, now);

		if (pair && !splits_whole_folio(st->pending.cause))
			count_whole_unmap(&st->pending);
		else
			count_split(&st->pending);
		clear_pending(st);
		if (pair) { /* this MAPPED update was the pair's: used up */
			st->last_mapped.pages = 0;
			return 0;
		}
	}
	if (item == anon_mapped) {
		if (val < 0 && pmd_sized(val))
			remember(&st->last_mapped, val, cgid, now);
		return 0;
	}
	if (val > 0) {
		struct taod_cg_counters *c = cg_get(cgid, &memcg->css);

		if (c)
			c->pmd_map_pages += val;
	} else if (st->last_mapped.pages && pairs_with(&st->last_mapped, val, cgid, now)) {
		/* MAPPED came first; the cause is told only now, a PMD later */
		st->last_mapped.cause = st->last_mapped.tgid ? split_cause() : TAOD_CAUSE_OTHER;
		if (splits_whole_folio(st->last_mapped.cause))
			count_split(&st->last_mapped);
		else
			count_whole_unmap(&st->last_mapped);
	} else {
		set_pending(ctx, st, val, cgid, now);
	}
	st->last_mapped.pages = 0;
	return 0;
}

SEC("tp_btf/count_memcg_events")
int BPF_PROG(on_memcg_event, struct mem_cgroup *memcg, int item, unsigned long val)
{
	return handle_memcg_event(memcg, item, val);
}

SEC("tp_btf/mod_memcg_lruvec_state")
int BPF_PROG(on_lruvec_state, struct mem_cgroup *memcg, int item, int val)
{
	return handle_lruvec_state(ctx, memcg, item, val);
}

/*
 * Kernels before 6.13 have no memcg tracepoints: the same events through
 * fentry on the functions that count them. Not autoloaded; the daemon
 * enables them (and disables the tracepoints) when BTF lacks the
 * tracepoints.
 */
SEC("?fentry/__count_memcg_events")
int BPF_PROG(on_memcg_event_fn, struct mem_cgroup *memcg, int item, unsigned long val)
{
	return handle_memcg_event(memcg, item, val);
}

SEC("?fentry/__mod_memcg_lruvec_state")
int BPF_PROG(on_lruvec_state_fn, struct lruvec *lruvec, int item, int val)
{
	struct mem_cgroup_per_node *pn = container_of(lruvec, struct mem_cgroup_per_node, lruvec);

	return handle_lruvec_state(ctx, BPF_CORE_READ(pn, memcg), item, val);
}

SEC("tp_btf/mm_page_alloc")
int BPF_PROG(on_page_alloc, struct page *page, unsigned int order, gfp_t gfp, int migratetype)
{
	struct taod_cg_counters *c;
	struct taod_task_counters *t;
	struct cgroup_subsys_state *css;
	__u32 o = order;
	__u64 cgid;

	if (o < 1 || o >= TAOD_MAX_ORDER || !page)
		return 0;
	if (migratetype != bpf_core_enum_value(enum migratetype, MIGRATE_MOVABLE))
		return 0;
	stat_inc(TAOD_STAT_PAGE_ALLOC_EVENTS);
	css = task_memcg_css(bpf_get_current_task_btf());
	cgid = css_cgid(css);
	c = cg_get(cgid, css);
	if (c && o < TAOD_MAX_ORDER)
		c->folio_alloc[o]++;
	if (o >= 2) {
		t = current_task_get(cgid);
		if (t)
			t->large_folio_alloc++;
	}
	return 0;
}

/*
 * Run by the daemon on each CPU every tick (BPF_PROG_TEST_RUN with
 * BPF_F_TEST_RUN_ON_CPU): a PMD removal that no rmap update followed,
 * as after an mprotect of part of a THP, is a split.
 */
SEC("raw_tp/taod_flush_pending")
int flush_pending(void *ctx)
{
	struct taod_unmap_state *st;
	__u32 zero = 0;

	st = bpf_map_lookup_elem(&unmap_state, &zero);
	if (!st || !st->pending.pages)
		return 0;
	if (bpf_ktime_get_ns() - st->pending.ts_ns < taod_cfg.stale_pending_ns)
		return 0;
	count_split(&st->pending);
	clear_pending(st);
	stat_inc(TAOD_STAT_PENDING_FLUSHED);
	return 1;
}
