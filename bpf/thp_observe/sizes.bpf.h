/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * Large folios per cgroup, task and order (maps cg_sizes, task_sizes):
 * what the per-size programs (sizes.bpf.c) and the partly-mapped queue
 * (partial_queue.bpf.c) both count into, and the reads of a folio both
 * need.
 */
#ifndef TAOD_BPF_THP_OBSERVE_SIZES_H
#define TAOD_BPF_THP_OBSERVE_SIZES_H

#include "shared.bpf.h"

/* Large-folio events and gauges per cgroup and order (struct taod_cg_sizes). */
TAOD_SHARED struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__uint(max_entries, TAOD_MAX_CGROUPS);
	__type(key, __u64);
	__type(value, struct taod_cg_sizes);
} cg_sizes SEC(".maps");

/*
 * The flags word of @folio's first page, or of its second (@second: the
 * folio's _flags_1, where its order and second-page flags live). A page
 * starts with its flags, an unsigned long, or on 7.x a struct holding one
 * (which CO-RE cannot match with the unsigned long of older kernels), so
 * it is read from the folio's address.
 */
static __always_inline unsigned long folio_flags(struct folio *folio, bool second)
{
	unsigned long v = 0;

	if (second)
		return BPF_CORE_READ(folio, _flags_1);
	bpf_probe_read_kernel(&v, sizeof(v), folio);
	return v;
}

/* Before 6.4 the order was a field of its own, not the low byte of
 * _flags_1 (6.1). */
struct folio___order_field {
	unsigned char _folio_order;
} __attribute__((preserve_access_index));

/* folio_order(): 0 unless the folio is large (PG_head), then the low byte
 * of its second page's flags, or the order field where there is one. */
static __always_inline __u32 folio_order_of(struct folio *folio)
{
	int head = bpf_core_enum_value(enum pageflags, PG_head);
	struct folio___order_field *old = (void *)folio;

	if (!(folio_flags(folio, false) & (1UL << head)))
		return 0;
	if (bpf_core_field_exists(old->_folio_order))
		return BPF_CORE_READ(old, _folio_order);
	return folio_flags(folio, true) & 0xff;
}

/* folio_test_anon(): the low bit of ->mapping. */
static __always_inline bool folio_is_anon(struct folio *folio)
{
	return (unsigned long)BPF_CORE_READ(folio, mapping) & 1;
}

/* folio_test_swapcache(): the kernel queues no folio in the swap cache. */
static __always_inline bool folio_in_swapcache(struct folio *folio)
{
	return folio_flags(folio, false) &
	       (1UL << bpf_core_enum_value(enum pageflags, PG_swapcache));
}

/* The row of memcg @cgid (@css its memory css), made on first use. */
static __always_inline struct taod_cg_sizes *sizes_get(__u64 cgid, struct cgroup_subsys_state *css)
{
	static const struct taod_cg_sizes zero;
	struct taod_cg_sizes *s = bpf_map_lookup_elem(&cg_sizes, &cgid);

	if (s)
		return s;
	cg_get(cgid, css); /* the daemon finds cgroups by their counters */
	bpf_map_update_elem(&cg_sizes, &cgid, &zero, BPF_NOEXIST);
	s = bpf_map_lookup_elem(&cg_sizes, &cgid);
	if (!s)
		stat_inc(TAOD_STAT_CG_SIZES_FULL);
	return s;
}

/* Large-folio events per task and order (struct taod_task_sizes). */
TAOD_SHARED struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, TAOD_MAX_TASKS);
	__type(key, __u32);
	__type(value, struct taod_task_sizes);
} task_sizes SEC(".maps");

enum size_event { SIZE_FAULT_ALLOC, SIZE_PARTIAL, SIZE_SPLIT };

/* The running task's own count of a large-folio event, by order. */
static __always_inline void task_size_count(__u32 order, enum size_event ev)
{
	static const struct taod_task_sizes zero;
	__u32 tgid = bpf_get_current_pid_tgid() >> 32;
	struct taod_task_sizes *s = bpf_map_lookup_elem(&task_sizes, &tgid);

	if (!s) {
		bpf_map_update_elem(&task_sizes, &tgid, &zero, BPF_NOEXIST);
		s = bpf_map_lookup_elem(&task_sizes, &tgid);
	}
	if (!s || order >= TAOD_MAX_ORDER)
		return;
	if (ev == SIZE_FAULT_ALLOC)
		__sync_fetch_and_add(&s->fault_alloc[order], 1);
	else if (ev == SIZE_PARTIAL)
		__sync_fetch_and_add(&s->partial[order], 1);
	else
		__sync_fetch_and_add(&s->split[order], 1);
}

/* One large-folio event of order @order in @memcg; the running task is
 * charged too if it owns that memory (below the PMD order only: PMD THPs
 * have their own task counters). */
static __always_inline void count_size(struct mem_cgroup *memcg, __u32 order, enum size_event ev)
{
	__u64 cgid = memcg ? memcg_id(memcg) : 0;
	struct taod_task_counters *t;
	struct taod_cg_sizes *s;

	stat_inc(TAOD_STAT_MTHP_EVENTS);
	if (!cgid || order >= TAOD_MAX_ORDER)
		return;
	s = sizes_get(cgid, &memcg->css);
	if (s && ev == SIZE_FAULT_ALLOC)
		__sync_fetch_and_add(&s->fault_alloc[order], 1);
	else if (s && ev == SIZE_PARTIAL)
		__sync_fetch_and_add(&s->partial[order], 1);
	else if (s)
		__sync_fetch_and_add(&s->split[order], 1);
	if (order >= taod_cfg.pmd_order || !current_owns(cgid))
		return;
	task_size_count(order, ev);
	t = current_task_get(cgid);
	if (t && ev == SIZE_FAULT_ALLOC)
		t->mthp_fault_alloc++;
	else if (t && ev == SIZE_PARTIAL)
		t->mthp_partial++;
	else if (t)
		t->mthp_split++;
}

/*
 * @n folios of @order more (or fewer) in gauge @partial (nr_partial, else
 * nr_anon) of memcg @cgid (@css its memory css, needed to add only). A
 * removal never takes a gauge below zero: folios mapped (or left partly
 * mapped) before taod attached are not in it.
 */
static __always_inline void gauge_add_id(__u64 cgid, struct cgroup_subsys_state *css, __u32 order,
					 __s64 n, bool partial)
{
	struct taod_cg_sizes *s;
	__s64 *g;

	if (!cgid || order < 2 || order >= TAOD_MAX_ORDER)
		return;
	s = n > 0 ? sizes_get(cgid, css) : bpf_map_lookup_elem(&cg_sizes, &cgid);
	if (!s)
		return;
	/* Checked again where it is used: the compiler may index with a copy
	 * of @order whose bound the verifier no longer knows. */
	barrier_var(order);
	if (order >= TAOD_MAX_ORDER)
		return;
	g = partial ? &s->nr_partial[order] : &s->nr_anon[order];
	if (n > 0 || *g + n >= 0)
		__sync_fetch_and_add(g, n);
}

static __always_inline void gauge_add(struct mem_cgroup *memcg, __u32 order, __s64 n, bool partial)
{
	if (memcg)
		gauge_add_id(memcg_id(memcg), &memcg->css, order, n, partial);
}

/* Folios of @memcg partly mapped now (struct taod_cg_sizes nr_partial). */
static __always_inline void partial_folios_add(struct mem_cgroup *memcg, __u32 order, __s64 n)
{
	if (taod_cfg.partial_gauge)
		gauge_add(memcg, order, n, true);
}

#endif
