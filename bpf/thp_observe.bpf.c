// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * Observe THP allocations, PMD mappings and PMD splits per memory cgroup
 * and per task. Everything is aggregated here in per-CPU maps; nothing is
 * sent to userspace per event. The daemon reads the maps once per tick.
 *
 * Memcg events, one of (the daemon's attach plan picks, from BTF):
 *   memcg:count_memcg_events     THP_FAULT_ALLOC, THP_FAULT_FALLBACK,
 *                                THP_COLLAPSE_ALLOC per memcg (6.13+)
 *   memcg:mod_memcg_lruvec_state NR_ANON_THPS / NR_ANON_MAPPED deltas, from
 *                                which PMD splits are told from whole unmaps
 *   or, before 6.13, fentry on __count_memcg_events and
 *   __mod_memcg_lruvec_state with the same handlers.
 * kmem:mm_page_alloc: large movable folios by order, attached only while an
 * mTHP size is enabled. fentry on the kernel's split functions (optional,
 * probed): splits counted exactly.
 */
#include "vmlinux.h"
#include <bpf/bpf_core_read.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

#include "taod/bpf_shared.h"
#include "taod/split_cause_rules.h"

char LICENSE[] SEC("license") = "Dual BSD/GPL";

const volatile struct taod_bpf_config taod_cfg = {
    .stale_pending_ns = 1000000,
    .pmd_pages = 512,
    .pmd_order = 9,
};

/*
 * CPUs holding an unpaired NR_ANON_THPS drop. A plain global, not a map:
 * base-page NR_ANON_MAPPED updates are rejected on this load alone while
 * it is zero, which it is except for the moment after a split.
 */
int pending_cpus;

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_HASH);
	__uint(max_entries, TAOD_MAX_CGROUPS);
	__type(key, __u64);
	__type(value, struct taod_cg_counters);
} cg_counters SEC(".maps");

/* Ancestors of each cgroup charged (struct taod_cg_ancestry). */
struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, TAOD_MAX_CGROUPS);
	__type(key, __u64);
	__type(value, struct taod_cg_ancestry);
} cg_parent SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_LRU_PERCPU_HASH);
	__uint(max_entries, TAOD_MAX_TASKS);
	__type(key, __u32);
	__type(value, struct taod_task_counters);
} task_counters SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct taod_unmap_state);
} unmap_state SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, TAOD_STAT_MAX);
	__type(key, __u32);
	__type(value, __u64);
} stats SEC(".maps");

/* Tasks whose split stacks are sampled (the daemon writes it), and their
 * last sampled stack. */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, TAOD_STACK_WATCH);
	__type(key, __u32);
	__type(value, __u8);
} stack_watch SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, TAOD_STACK_WATCH * 4);
	__type(key, __u32);
	__type(value, struct taod_split_stack);
} split_stacks SEC(".maps");

/* Large-folio events per cgroup and order (struct taod_cg_sizes). */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__uint(max_entries, TAOD_MAX_CGROUPS);
	__type(key, __u64);
	__type(value, struct taod_cg_sizes);
} cg_sizes SEC(".maps");

/* Large-folio events per task and order (struct taod_task_sizes). */
struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, TAOD_MAX_TASKS);
	__type(key, __u32);
	__type(value, struct taod_task_sizes);
} task_sizes SEC(".maps");

/*
 * THP paths mode (fentry): the events are taken where the kernel handles
 * huge pages, so a base-page fault runs no program at all. Not autoloaded;
 * the daemon enables these, instead of the memcg programs, when BTF has
 * every function they need. A fault may sleep and move between CPUs, so
 * where a task is in a THP path is kept per task.
 */
struct thp_path_ctx {
	__u8 in_fault;	 /* inside do_huge_pmd_anonymous_page */
	__u8 zero_page;	 /* ... which mapped the huge zero page */
	__u8 deposited;	 /* ... which installed a PMD (its page table deposited) */
	__u8 in_zap;	 /* inside zap_huge_pmd */
	__u8 in_split;	 /* inside a PMD split */
	__u64 split_pmd; /* before 6.2: the PMD a split started from */
	/* Inside a folio split (per-size programs): the folio's order and
	 * memcg, counted at the exit if the split succeeded. */
	__u32 size_split_order; /* 0: not in one */
	__u64 size_split_memcg; /* struct mem_cgroup *, or 0 */
	/* ... and for the folios held per size: the order it splits to, and
	 * whether the folio is anonymous. */
	__u32 size_split_new_order;
	__u8 size_split_anon;
};

struct {
	__uint(type, BPF_MAP_TYPE_TASK_STORAGE);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, int);
	__type(value, struct thp_path_ctx);
} thp_path SEC(".maps");

/* Since 6.2 a PMD split ends in the rmap removal of the PMD mapping (and
 * struct folio has _entire_mapcount); 6.1 drops the mapcount inline. */
static __always_inline bool rmap_on_split(void)
{
	return bpf_core_field_exists(((struct folio *)0)->_entire_mapcount);
}

static __always_inline struct thp_path_ctx *path_ctx(bool create)
{
	return bpf_task_storage_get(&thp_path, bpf_get_current_task_btf(), 0,
				    create ? BPF_LOCAL_STORAGE_GET_F_CREATE : 0);
}

static __always_inline void stat_inc(__u32 which)
{
	__u64 *v = bpf_map_lookup_elem(&stats, &which);

	if (v)
		(*v)++;
}

static __always_inline __u64 css_cgid(struct cgroup_subsys_state *css)
{
	return css ? BPF_CORE_READ(css, cgroup, kn, id) : 0;
}

/* The ancestors of @css's cgroup @cgid, for a daemon that may never see it. */
static __always_inline void note_ancestry(__u64 cgid, struct cgroup_subsys_state *css)
{
	struct taod_cg_ancestry a = {};

#pragma unroll
	for (int i = 0; i < TAOD_CG_ANCESTORS; i++) {
		css = BPF_CORE_READ(css, parent);
		if (!css)
			break;
		a.id[i] = css_cgid(css);
	}
	if (a.id[0])
		bpf_map_update_elem(&cg_parent, &cgid, &a, BPF_ANY);
}

/*
 * The counters of memcg @cgid. @css is its memory css where the caller has
 * it (the events that can charge a cgroup first: faults, collapses, maps),
 * NULL for events that follow one; a first charge notes the ancestry, so
 * the cost is once per cgroup, never per event.
 */
static __always_inline struct taod_cg_counters *cg_get(__u64 cgid, struct cgroup_subsys_state *css)
{
	static const struct taod_cg_counters zero;
	struct taod_cg_counters *c = bpf_map_lookup_elem(&cg_counters, &cgid);

	if (c)
		return c;
	if (css)
		note_ancestry(cgid, css);
	bpf_map_update_elem(&cg_counters, &cgid, &zero, BPF_NOEXIST);
	return bpf_map_lookup_elem(&cg_counters, &cgid);
}

static __always_inline struct taod_task_counters *task_get(__u32 tgid, __u64 cgid, const char *comm)
{
	static const struct taod_task_counters zero;
	struct taod_task_counters *t = bpf_map_lookup_elem(&task_counters, &tgid);

	if (!t) {
		bpf_map_update_elem(&task_counters, &tgid, &zero, BPF_NOEXIST);
		t = bpf_map_lookup_elem(&task_counters, &tgid);
		if (!t)
			return NULL;
	}
	/* The task may have moved; keep the latest memcg and name. */
	t->cgroup_id = cgid;
	__builtin_memcpy(t->comm, comm, TAOD_COMM_LEN);
	return t;
}

static __always_inline struct taod_task_counters *current_task_get(__u64 cgid)
{
	char comm[TAOD_COMM_LEN];

	bpf_get_current_comm(comm, sizeof(comm));
	return task_get(bpf_get_current_pid_tgid() >> 32, cgid, comm);
}

/* task->flags bits (include/linux/sched.h). */
#define TAOD_PF_EXITING	 0x00000004 /* in do_exit: its mm goes */
#define TAOD_PF_MEMALLOC 0x00000800 /* reclaiming: kswapd, or direct reclaim */
#define TAOD_PF_KTHREAD	 0x00200000

/* A kernel thread's cause, by its name. */
static __always_inline __u32 kthread_cause(struct task_struct *task)
{
	char comm[TAOD_COMM_LEN] = {};

	bpf_core_read_str(comm, sizeof(comm), &task->comm);
	return kthread_name_cause(comm);
}

/*
 * What the running task is doing while it splits a PMD: its syscall, from
 * the user registers saved at kernel entry, or a page fault (a THP's
 * copy-on-write after fork). Runs only at a split, never per base page.
 * x86-64 keeps a page fault's error code where a syscall keeps its number
 * (orig_ax); the SYSCALL instruction's entry leaves cx == ip and r11 ==
 * flags, which a fault's registers all but never show. No table syscall
 * number is a user page fault's error code (each has the reserved-bit or
 * a higher bit set), so the table is tried first.
 */
static __always_inline __u32 split_cause(void)
{
	struct task_struct *task = bpf_get_current_task_btf();
	unsigned int flags = task->flags;
	struct pt_regs *regs;
	__u32 cause;

	if (flags & TAOD_PF_KTHREAD)
		return kthread_cause(task);
	if (flags & TAOD_PF_EXITING)
		return TAOD_CAUSE_EXIT; /* exit, or killed by a signal in any syscall */
	if (flags & TAOD_PF_MEMALLOC)
		return TAOD_CAUSE_RECLAIM; /* direct reclaim */
	regs = (struct pt_regs *)bpf_task_pt_regs(task);
	if (!regs)
		return TAOD_CAUSE_OTHER;
#if defined(__TARGET_ARCH_arm64)
	if (BPF_CORE_READ(regs, syscallno) == -1) /* NO_SYSCALL: an exception */
		return TAOD_CAUSE_COW;
	return syscall_cause(BPF_CORE_READ(regs, syscallno), BPF_CORE_READ(regs, regs[2]),
			     BPF_CORE_READ(regs, regs[3]));
#else
	cause = syscall_cause((long)BPF_CORE_READ(regs, orig_ax), BPF_CORE_READ(regs, dx),
			      BPF_CORE_READ(regs, r10));
	if (cause != TAOD_CAUSE_OTHER)
		return cause;
	if (BPF_CORE_READ(regs, cx) == BPF_CORE_READ(regs, ip) &&
	    BPF_CORE_READ(regs, r11) == BPF_CORE_READ(regs, flags))
		return TAOD_CAUSE_OTHER; /* another syscall */
	return TAOD_CAUSE_COW;
#endif
}

/*
 * The running task's user stack, if it is @tgid and the daemon marked it:
 * a split charged to a top offender, in its own syscall or fault. One hash
 * lookup per split for everyone else.
 */
static __always_inline void sample_stack(void *ctx, __u32 tgid, __u32 cause)
{
	static const struct taod_split_stack zero;
	struct taod_split_stack *s;
	long n;

	if (!tgid || tgid != bpf_get_current_pid_tgid() >> 32 ||
	    !bpf_map_lookup_elem(&stack_watch, &tgid))
		return;
	s = bpf_map_lookup_elem(&split_stacks, &tgid);
	if (!s) {
		bpf_map_update_elem(&split_stacks, &tgid, &zero, BPF_NOEXIST);
		s = bpf_map_lookup_elem(&split_stacks, &tgid);
		if (!s)
			return;
	}
	n = bpf_get_stack(ctx, s->frames, sizeof(s->frames),
			  BPF_F_USER_STACK | BPF_F_USER_BUILD_ID);
	s->nframes = n > 0 ? n / sizeof(s->frames[0]) : 0;
	s->cause = cause;
	s->samples++;
}

/* A PMD-sized (or larger) stat delta: the only ones about PMD mappings. */
static __always_inline bool pmd_sized(int val)
{
	return val <= -(int)taod_cfg.pmd_pages || val >= (int)taod_cfg.pmd_pages;
}

static __always_inline __u64 memcg_id(struct mem_cgroup *memcg)
{
	return BPF_CORE_READ(memcg, css.cgroup, kn, id);
}

/* Memory css of @task, on cgroup v1 and v2 alike; NULL if none. */
static __always_inline struct cgroup_subsys_state *task_memcg_css(struct task_struct *task)
{
	int idx = bpf_core_enum_value(enum cgroup_subsys_id, memory_cgrp_id);
	struct css_set *cset = BPF_CORE_READ(task, cgroups);
	struct cgroup_subsys_state *css = NULL;

	if (idx < 0 || idx >= CGROUP_SUBSYS_COUNT || !cset)
		return NULL;
	bpf_core_read(&css, sizeof(css), &cset->subsys[idx]);
	return css;
}

static __always_inline __u64 task_memcg_id(struct task_struct *task)
{
	return css_cgid(task_memcg_css(task));
}

static __always_inline __u64 current_memcg_id(void)
{
	return task_memcg_id(bpf_get_current_task_btf());
}

/*
 * Whether the running task is the one to charge for a page of memcg @cgid:
 * a user task in that memcg (an exiting one has dropped its mm already
 * when its memory goes). Remote work (taod splitting a task's THPs,
 * kswapd, khugepaged) runs in another memcg or is a kernel thread and is
 * charged to the cgroup only.
 */
static __always_inline bool current_owns(__u64 cgid)
{
	struct task_struct *task = bpf_get_current_task_btf();
	unsigned int flags = task->flags;

	if (!task->mm && (!(flags & TAOD_PF_EXITING) || (flags & TAOD_PF_KTHREAD)))
		return false;
	return current_memcg_id() == cgid;
}

static __always_inline void count_split(struct taod_anon_event *e)
{
	struct taod_cg_counters *c = cg_get(e->cgroup_id, NULL);
	struct taod_task_counters *t = e->tgid ? task_get(e->tgid, e->cgroup_id, e->comm) : NULL;
	__u64 n = (__u64)(-(__s64)e->pages);

	if (c) {
		c->pmd_split++;
		c->pmd_split_pages += n;
	}
	if (t) {
		t->pmd_split++;
		t->pmd_split_pages += n;
		if (e->cause < TAOD_CAUSE_MAX)
			t->pmd_split_by_cause[e->cause]++;
	}
}

static __always_inline void count_whole_unmap(struct taod_anon_event *e)
{
	struct taod_cg_counters *c = cg_get(e->cgroup_id, NULL);
	struct taod_task_counters *t = e->tgid ? task_get(e->tgid, e->cgroup_id, e->comm) : NULL;

	if (c)
		c->pmd_unmap_whole++;
	if (t)
		t->pmd_unmap_whole++;
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

/* Remembers a PMD-sized drop, and its task if that task owns the memory. */
static __always_inline void remember(struct taod_anon_event *e, int val, __u64 cgid, __u64 now)
{
	e->cgroup_id = cgid;
	e->ts_ns = now;
	e->pages = val;
	e->tgid = 0;
	if (current_owns(cgid)) {
		e->tgid = bpf_get_current_pid_tgid() >> 32;
		bpf_get_current_comm(e->comm, sizeof(e->comm));
	}
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

/*
 * Exact split counts where fentry is allowed. Not autoloaded: the daemon
 * sets the attach target it found in BTF and enables them when probing.
 * The split is charged to the THP's memcg, and to the running task only if
 * it owns that memory: taod splitting a task's THPs, or the deferred-split
 * shrinker, must not be counted as the splitter.
 */
static __always_inline int count_exact_split(__u64 cgid)
{
	struct taod_cg_counters *c;
	struct taod_task_counters *t;

	stat_inc(TAOD_STAT_SPLIT_EVENTS);
	if (!cgid)
		return 0;
	c = cg_get(cgid, NULL);
	t = current_owns(cgid) ? current_task_get(cgid) : NULL;
	if (c)
		c->split_exact++;
	if (t)
		t->split_exact++;
	return 0;
}

/* Whether @memcg really is one: the memory css of its cgroup is itself. */
static __always_inline bool is_memcg(struct mem_cgroup *memcg)
{
	int idx = bpf_core_enum_value(enum cgroup_subsys_id, memory_cgrp_id);
	struct cgroup *cgrp = BPF_CORE_READ(memcg, css.cgroup);
	struct cgroup_subsys_state *css = NULL;

	if (!cgrp || idx < 0 || idx >= CGROUP_SUBSYS_COUNT)
		return false;
	bpf_core_read(&css, sizeof(css), &cgrp->subsys[idx]);
	return css && css == &memcg->css;
}

/*
 * Memcg of the THP a folio split function was given: a folio, or on older
 * kernels a page that may be a tail page (6.1's deferred-split shrinker
 * passes one), resolved to its head. Kernels whose struct page has no
 * compound_head any more (7.x: compound_info) split through __folio_split,
 * which takes the folio. memcg_data holds the memcg, or on newer kernels an
 * obj_cgroup that points to it; which one is checked, not assumed.
 */
static __always_inline struct folio *head_folio(void *page_or_folio)
{
	struct page *page = page_or_folio;

	if (bpf_core_field_exists(page->compound_head)) {
		unsigned long head = BPF_CORE_READ(page, compound_head);

		if (head & 1)
			return (struct folio *)(head - 1);
	}
	return page_or_folio;
}

static __always_inline struct mem_cgroup *folio_memcg(void *page_or_folio)
{
	struct folio *folio = head_folio(page_or_folio);
	struct mem_cgroup *memcg;
	unsigned long data;

	data = BPF_CORE_READ(folio, memcg_data);
	if (!data || (data & 1)) /* none, or slab object extensions */
		return NULL;
	memcg = (struct mem_cgroup *)(data & ~3UL);
	if (!is_memcg(memcg))
		memcg = BPF_CORE_READ((struct obj_cgroup *)(data & ~3UL), memcg);
	return memcg && is_memcg(memcg) ? memcg : NULL;
}

static __always_inline __u64 folio_memcg_id(void *page_or_folio)
{
	struct mem_cgroup *memcg = folio_memcg(page_or_folio);

	return memcg ? memcg_id(memcg) : 0;
}

/* A PMD split: the THP is charged to the memcg of the mm's owner. */
SEC("?fentry/__split_huge_pmd")
int BPF_PROG(on_split_pmd, struct vm_area_struct *vma, pmd_t *pmd)
{
	if (taod_cfg.thp_paths) {
		struct thp_path_ctx *x = path_ctx(true);

		if (x) {
			x->in_split = 1;
			x->split_pmd = 0;
			if (!rmap_on_split())
				bpf_probe_read_kernel(&x->split_pmd, sizeof(x->split_pmd), pmd);
		}
	}
	return count_exact_split(task_memcg_id(BPF_CORE_READ(vma, vm_mm, owner)));
}

/* __folio_split (6.18+), split_huge_page_to_list_to_order (6.12) or
 * split_huge_page_to_list (6.1): the first argument is the folio or page. */
SEC("?fentry/__folio_split")
int BPF_PROG(on_split_folio, void *page_or_folio)
{
	return count_exact_split(folio_memcg_id(page_or_folio));
}

/* The task and memcg an mm's memory is charged to: its owner's. */
static __always_inline struct taod_task_counters *owner_task_get(struct task_struct *owner,
								 __u64 cgid)
{
	char comm[TAOD_COMM_LEN];

	if (!owner)
		return NULL;
	bpf_core_read_str(comm, sizeof(comm), &owner->comm);
	return task_get(BPF_CORE_READ(owner, tgid), cgid, comm);
}

/* A THP faulted into memcg @css (NULL: none). */
static __always_inline void count_fault_alloc(struct cgroup_subsys_state *css,
					      struct task_struct *owner)
{
	__u64 cgid = css_cgid(css);
	struct taod_cg_counters *c;
	struct taod_task_counters *t;

	if (!cgid)
		return;
	c = cg_get(cgid, css);
	t = owner_task_get(owner, cgid);
	if (c) {
		c->thp_fault_alloc++;
		c->pmd_map_pages += taod_cfg.pmd_pages;
		if (taod_cfg.folio_alloc_from_events && taod_cfg.pmd_order < TAOD_MAX_ORDER)
			c->folio_alloc[taod_cfg.pmd_order]++;
	}
	if (t)
		t->thp_fault_alloc++;
}

SEC("?fentry/do_huge_pmd_anonymous_page")
int BPF_PROG(on_huge_fault_enter)
{
	struct thp_path_ctx *x = path_ctx(true);

	stat_inc(TAOD_STAT_THP_PATH_EVENTS);
	if (x) {
		x->in_fault = 1;
		x->zero_page = 0;
		x->deposited = 0;
	}
	return 0;
}

/* Only the fault path's deposit matters: fork and collapse deposit too. */
SEC("?fentry/pgtable_trans_huge_deposit")
int BPF_PROG(on_pmd_deposit)
{
	struct thp_path_ctx *x = path_ctx(false);

	if (x && x->in_fault)
		x->deposited = 1;
	return 0;
}

/* mm_get_huge_zero_folio, or mm_get_huge_zero_page before 6.10. */
SEC("?fentry/mm_get_huge_zero_folio")
int BPF_PROG(on_huge_zero_get)
{
	struct thp_path_ctx *x = path_ctx(false);

	if (x && x->in_fault)
		x->zero_page = 1;
	return 0;
}

/* Whether the 2 MiB range around @addr fits in @vma (a THP could go there). */
static __always_inline bool pmd_fits(struct vm_area_struct *vma, unsigned long addr)
{
	unsigned long start = addr & ~((unsigned long)taod_cfg.pmd_pages * 4096 - 1);

	return BPF_CORE_READ(vma, vm_start) <= start &&
	       start + (unsigned long)taod_cfg.pmd_pages * 4096 <= BPF_CORE_READ(vma, vm_end);
}

/*
 * A huge fault that installed a PMD of its own (not the zero page's)
 * allocated a THP; one that fell back where a THP fitted found none.
 */
SEC("?fexit/do_huge_pmd_anonymous_page")
int BPF_PROG(on_huge_fault_exit, struct vm_fault *vmf, unsigned int ret)
{
	struct thp_path_ctx *x = path_ctx(false);
	struct cgroup_subsys_state *css;
	struct vm_area_struct *vma;
	struct task_struct *owner;
	struct taod_cg_counters *c;
	__u64 cgid;

	if (!x || !x->in_fault)
		return 0;
	x->in_fault = 0;
	if (x->zero_page)
		return 0;
	vma = BPF_CORE_READ(vmf, vma);
	owner = BPF_CORE_READ(vma, vm_mm, owner);
	css = task_memcg_css(owner);
	cgid = css_cgid(css);
	if (x->deposited && !taod_cfg.fault_alloc_at_map) {
		count_fault_alloc(css, owner);
		return 0;
	}
	if (x->deposited || !(ret & bpf_core_enum_value(enum vm_fault_reason, VM_FAULT_FALLBACK)))
		return 0;
	if (!cgid || !pmd_fits(vma, BPF_CORE_READ(vmf, address)))
		return 0;
	c = cg_get(cgid, css);
	if (c)
		c->thp_fault_fallback++;
	return 0;
}

/* 6.16+: the one place a faulted THP is mapped, the huge zero page's
 * write fault included. */
SEC("?fentry/map_anon_folio_pmd_pf")
int BPF_PROG(on_map_anon_pmd, struct folio *folio, pmd_t *pmd, struct vm_area_struct *vma)
{
	struct task_struct *owner = BPF_CORE_READ(vma, vm_mm, owner);
	struct mem_cgroup *memcg = folio_memcg(folio);

	stat_inc(TAOD_STAT_THP_PATH_EVENTS);
	count_fault_alloc(memcg ? &memcg->css : task_memcg_css(owner), owner);
	return 0;
}

/*
 * khugepaged and MADV_COLLAPSE: counted as the kernel counts
 * THP_COLLAPSE_ALLOC, once the new THP is allocated and charged, whether
 * the collapse then succeeds or not. Charged to the mm's owner's memcg.
 */
static __always_inline int count_pmd_collapse(struct mm_struct *mm, int isolated, int status)
{
	struct cgroup_subsys_state *css;
	struct taod_cg_counters *c;
	__u64 cgid;

	stat_inc(TAOD_STAT_THP_PATH_EVENTS);
	if (!isolated) {
		if (!bpf_core_enum_value_exists(enum scan_result, SCAN_ALLOC_HUGE_PAGE_FAIL))
			return 0;
		if (status == bpf_core_enum_value(enum scan_result, SCAN_ALLOC_HUGE_PAGE_FAIL) ||
		    status == bpf_core_enum_value(enum scan_result, SCAN_CGROUP_CHARGE_FAIL))
			return 0;
	}
	css = task_memcg_css(BPF_CORE_READ(mm, owner));
	cgid = css_cgid(css);
	c = cgid ? cg_get(cgid, css) : NULL;
	if (!c)
		return 0;
	c->thp_collapse_alloc++;
	if (isolated)
		c->pmd_map_pages += taod_cfg.pmd_pages;
	if (taod_cfg.folio_alloc_from_events && taod_cfg.pmd_order < TAOD_MAX_ORDER)
		c->folio_alloc[taod_cfg.pmd_order]++;
	return 0;
}

/* Before 7.3 the tracepoint has no order: every collapse is to the PMD size. */
SEC("?tp_btf/mm_collapse_huge_page")
int BPF_PROG(on_collapse, struct mm_struct *mm, int isolated, int status)
{
	return count_pmd_collapse(mm, isolated, status);
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
static __always_inline struct taod_cg_sizes *sizes_get(__u64 cgid, struct cgroup_subsys_state *css);

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

/* Sets (@in) or clears the running task's zap or split mark. */
static __always_inline int mark_path(bool zap, bool in)
{
	struct thp_path_ctx *x = path_ctx(in);

	if (x && zap)
		x->in_zap = in;
	else if (x)
		x->in_split = in;
	return 0;
}

SEC("?fentry/zap_huge_pmd")
int BPF_PROG(on_zap_enter)
{
	stat_inc(TAOD_STAT_THP_PATH_EVENTS);
	return mark_path(true, true);
}

SEC("?fexit/zap_huge_pmd")
int BPF_PROG(on_zap_exit)
{
	return mark_path(true, false);
}

/*
 * A PMD's worth of @vma's memory, charged to memcg @cgid (0: the mm
 * owner's) and to the mm's owner task; false when there is no memcg.
 */
static __always_inline bool owner_pmd_event(struct taod_anon_event *e, struct vm_area_struct *vma,
					    __u64 cgid)
{
	struct task_struct *owner = BPF_CORE_READ(vma, vm_mm, owner);

	e->cgroup_id = cgid ? cgid : task_memcg_id(owner);
	e->pages = -(int)taod_cfg.pmd_pages;
	if (owner) {
		e->tgid = BPF_CORE_READ(owner, tgid);
		bpf_core_read_str(e->comm, sizeof(e->comm), &owner->comm);
	}
	return e->cgroup_id != 0;
}

/* x86 PMD bits: present (or PROT_NONE), and a leaf mapping 2 MiB. */
static __always_inline bool pmd_maps_huge(__u64 v)
{
	return (v & (1 | 0x100)) && (v & 0x80);
}

static __always_inline __u64 pmd_pfn(__u64 v)
{
	return (v & 0x000fffffffe00000ULL) >> 12;
}

/*
 * Before 6.2: the split of an anonymous THP's PMD (not the huge zero
 * page's) that left a page table behind, charged to the mm's owner.
 */
static __always_inline void count_pmd_split_v61(void *ctx, struct thp_path_ctx *x,
						struct vm_area_struct *vma, pmd_t *pmd)
{
	struct taod_anon_event e = {};
	__u64 now = 0;

	if (!pmd_maps_huge(x->split_pmd) || pmd_pfn(x->split_pmd) == taod_cfg.huge_zero_pfn)
		return;
	if (BPF_CORE_READ(vma, vm_ops)) /* file or shmem: zapped, not split */
		return;
	bpf_probe_read_kernel(&now, sizeof(now), pmd);
	if (now == x->split_pmd || pmd_maps_huge(now))
		return;
	e.cause = split_cause();
	if (!owner_pmd_event(&e, vma, 0))
		return;
	count_split(&e);
	sample_stack(ctx, e.tgid, e.cause);
}

SEC("?fexit/__split_huge_pmd")
int BPF_PROG(on_split_pmd_exit, struct vm_area_struct *vma, pmd_t *pmd)
{
	struct thp_path_ctx *x = path_ctx(false);

	if (x && x->in_split && x->split_pmd)
		count_pmd_split_v61(ctx, x, vma, pmd);
	return mark_path(false, false);
}

/* A folio split (6.10+) splits its PMD mappings here, not in __split_huge_pmd. */
SEC("?fentry/split_huge_pmd_locked")
int BPF_PROG(on_split_locked_enter)
{
	return mark_path(false, true);
}

SEC("?fexit/split_huge_pmd_locked")
int BPF_PROG(on_split_locked_exit)
{
	return mark_path(false, false);
}

/* 6.1's struct page kept a THP's PMD mapcount in its first tail page. */
struct page___v61 {
	atomic_t compound_mapcount;
} __attribute__((preserve_access_index));

/* Whether the THP at @head is PMD-mapped once: the mapping going away is
 * its last (the mapcounts start at -1). */
static __always_inline bool last_pmd_mapping(struct folio *head)
{
	struct page___v61 *tail;

	if (bpf_core_field_exists(head->_entire_mapcount))
		return BPF_CORE_READ(head, _entire_mapcount.counter) == 0;
	tail = (void *)((char *)head + bpf_core_type_size(struct page));
	return BPF_CORE_READ(tail, compound_mapcount.counter) == 0;
}

/*
 * A PMD mapping of an anonymous THP goes away. Under a split it is a PMD
 * split, every one, as the kernel's thp_split_pmd counts them: after fork
 * a THP is PMD-mapped by parent and child, and the copy-on-write fault of
 * either splits its own PMD while the other's stays. Under a zap only the
 * last PMD mapping is a whole unmap (as NR_ANON_THPS drops then).
 * Migration and reclaim remove PMD mappings too; they are neither.
 */
static __always_inline int pmd_mapping_removed(void *ctx, struct folio *folio,
					       struct vm_area_struct *vma)
{
	struct thp_path_ctx *x = path_ctx(false);
	struct taod_anon_event e = {};

	if (!x || !(x->in_zap || x->in_split))
		return 0;
	if (!((unsigned long)BPF_CORE_READ(folio, mapping) & 1)) /* PAGE_MAPPING_ANON */
		return 0;
	if (!x->in_split && !last_pmd_mapping(folio))
		return 0;
	if (!owner_pmd_event(&e, vma, folio_memcg_id(folio)))
		return 0;
	if (x->in_split) {
		e.cause = split_cause();
		count_split(&e);
		sample_stack(ctx, e.tgid, e.cause);
	} else {
		count_whole_unmap(&e);
	}
	return 0;
}

/* 6.8+: called for PMD mappings only. */
SEC("?fentry/folio_remove_rmap_pmd")
int BPF_PROG(on_rmap_pmd_removed, struct folio *folio, struct page *page,
	     struct vm_area_struct *vma)
{
	return pmd_mapping_removed(ctx, folio, vma);
}

/* Before 6.8, for every mapping: a base page's returns at the first test,
 * so a base-page unmap (not a fault) runs this once. */
SEC("?fentry/page_remove_rmap")
int BPF_PROG(on_page_rmap_removed, struct page *page, struct vm_area_struct *vma, bool compound)
{
	if (!compound)
		return 0;
	return pmd_mapping_removed(ctx, (struct folio *)page, vma);
}

/*
 * Multi-size THP: large anonymous folios of every order, counted as the
 * kernel counts them per size (hugepages-<N>kB/stats), per memcg of the
 * folio and per task that owns that memory. Not autoloaded: the daemon
 * enables them where fentry is allowed and BTF has the functions.
 */
enum size_event { SIZE_FAULT_ALLOC, SIZE_PARTIAL, SIZE_SPLIT };

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

/* folio_order(): 0 unless the folio is large (PG_head), then the low byte
 * of its second page's flags. */
static __always_inline __u32 folio_order_of(struct folio *folio)
{
	int head = bpf_core_enum_value(enum pageflags, PG_head);

	if (!(folio_flags(folio, false) & (1UL << head)))
		return 0;
	return folio_flags(folio, true) & 0xff;
}

static __always_inline struct taod_cg_sizes *sizes_get(__u64 cgid, struct cgroup_subsys_state *css)
{
	static const struct taod_cg_sizes zero;
	struct taod_cg_sizes *s = bpf_map_lookup_elem(&cg_sizes, &cgid);

	if (s)
		return s;
	cg_get(cgid, css); /* the daemon finds cgroups by their counters */
	bpf_map_update_elem(&cg_sizes, &cgid, &zero, BPF_NOEXIST);
	return bpf_map_lookup_elem(&cg_sizes, &cgid);
}

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

/* folio_test_anon(): the low bit of ->mapping. */
static __always_inline bool folio_is_anon(struct folio *folio)
{
	return (unsigned long)BPF_CORE_READ(folio, mapping) & 1;
}

/*
 * @n folios of @order more (or fewer) held as anonymous memory by @memcg
 * (struct taod_cg_sizes nr_anon). A removal never takes the count below
 * zero: folios mapped before taod attached are not in it.
 */
static __always_inline void anon_folios_add(struct mem_cgroup *memcg, __u32 order, __s64 n)
{
	__u64 cgid = memcg ? memcg_id(memcg) : 0;
	struct taod_cg_sizes *s;

	if (!taod_cfg.size_held || !cgid || order < 2 || order >= TAOD_MAX_ORDER)
		return;
	if (n > 0) {
		s = sizes_get(cgid, &memcg->css);
		if (s)
			__sync_fetch_and_add(&s->nr_anon[order], n);
		return;
	}
	s = bpf_map_lookup_elem(&cg_sizes, &cgid);
	if (s && s->nr_anon[order] + n >= 0)
		__sync_fetch_and_add(&s->nr_anon[order], n);
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
	int swapcache = bpf_core_enum_value(enum pageflags, PG_swapcache);
	int pm = bpf_core_enum_value(enum pageflags, PG_partially_mapped);
	__u32 order;

	if (!partially_mapped)
		return 0;
	order = folio_order_of(folio);
	if (order < 2)
		return 0;
	if (folio_flags(folio, false) & (1UL << swapcache)) /* the kernel skips those */
		return 0;
	if (folio_flags(folio, true) & (1UL << pm)) /* counted already */
		return 0;
	count_size(folio_memcg(folio), order, SIZE_PARTIAL);
	return 0;
}

/* A folio split starts: what the folios held per size need at its end. */
static __always_inline void size_split_note(void *ctx, struct thp_path_ctx *x, struct folio *folio)
{
	__u64 new_order = 0;

	bpf_get_func_arg(ctx, taod_cfg.split_new_order_arg, &new_order);
	x->size_split_new_order = (__u32)new_order;
	x->size_split_anon = folio_is_anon(folio);
}

/* A split of an anonymous folio of @order into folios of new_order
 * succeeded: its memcg holds one folio of @order fewer, and 2^(order -
 * new_order) of new_order more (none below order 2). */
static __always_inline void size_split_done(struct thp_path_ctx *x, __u32 order)
{
	struct mem_cgroup *memcg = (struct mem_cgroup *)x->size_split_memcg;
	__u32 to = x->size_split_new_order;

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
