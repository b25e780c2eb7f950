/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * Observe THP allocations, PMD mappings and PMD splits per memory cgroup
 * and per task. Everything is aggregated here in per-CPU maps; nothing is
 * sent to userspace per event. The daemon reads the maps once per tick.
 *
 * One BPF object in several files, one per attach family, which
 * bpftool gen object links into the one thp_observe skeleton:
 *   memcg.bpf.c      memcg tracepoints (6.13+) or their fentry twins
 *                    before 6.13, the NR_ANON_THPS pairing, its flush;
 *                    kmem:mm_page_alloc
 *   thp_paths.bpf.c  fentry on the kernel's split functions (exact
 *                    splits) and on its THP paths (THP paths mode)
 *   sizes.bpf.c      fentry for multi-size THP: large folios per order
 *   partial_queue.bpf.c  fentry before 6.12: the folios partly mapped
 *                    now, as the deferred split queue holds them
 *   shared.bpf.c     the license and the definitions of what this
 *                    header declares extern: the config and the maps more
 *                    than one family counts into
 * A map only one family uses is defined in that family's file. The
 * helpers here are always inlined, so each family carries its own copy
 * and the linker has only maps and variables to join.
 */
#ifndef TAOD_BPF_THP_OBSERVE_SHARED_H
#define TAOD_BPF_THP_OBSERVE_SHARED_H

#include "vmlinux.h"
#include <bpf/bpf_core_read.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

#include "taod/split_cause_rules.h"
#include "taod/thp_observe.h"

/* Defined in shared.bpf.c (which sets TAOD_BPF_DEFINE_SHARED), extern in
 * every other file: one text, so the definition and the declarations the
 * linker checks against it cannot differ. */
#ifdef TAOD_BPF_DEFINE_SHARED
#define TAOD_SHARED
#else
#define TAOD_SHARED extern
#endif

extern const volatile struct taod_bpf_config taod_cfg;

TAOD_SHARED struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_HASH);
	__uint(max_entries, TAOD_MAX_CGROUPS);
	__type(key, __u64);
	__type(value, struct taod_cg_counters);
} cg_counters SEC(".maps");

/*
 * Where a cgroup's events go when cg_counters is full (a tenant can make
 * more cgroups than it holds): an LRU, so the busiest cgroups keep their
 * rows, which the daemon drains into its own counters every tick.
 */
TAOD_SHARED struct {
	__uint(type, BPF_MAP_TYPE_LRU_PERCPU_HASH);
	__uint(max_entries, TAOD_CG_OVERFLOW);
	__type(key, __u64);
	__type(value, struct taod_cg_counters);
} cg_overflow SEC(".maps");

/* Ancestors of each cgroup charged (struct taod_cg_ancestry). */
TAOD_SHARED struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, TAOD_MAX_CGROUPS);
	__type(key, __u64);
	__type(value, struct taod_cg_ancestry);
} cg_parent SEC(".maps");

TAOD_SHARED struct {
	__uint(type, BPF_MAP_TYPE_LRU_PERCPU_HASH);
	__uint(max_entries, TAOD_MAX_TASKS);
	__type(key, __u32);
	__type(value, struct taod_task_counters);
} task_counters SEC(".maps");

TAOD_SHARED struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, TAOD_STAT_MAX);
	__type(key, __u32);
	__type(value, __u64);
} stats SEC(".maps");

/* Tasks whose split stacks are sampled (the daemon writes it), and their
 * last sampled stack. */
TAOD_SHARED struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, TAOD_STACK_WATCH);
	__type(key, __u32);
	__type(value, __u8);
} stack_watch SEC(".maps");

TAOD_SHARED struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, TAOD_STACK_WATCH * 4);
	__type(key, __u32);
	__type(value, struct taod_split_stack);
} split_stacks SEC(".maps");

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
	__u8 size_split_partial; /* the folio was partly mapped (nr_partial) */
	/* Before 6.12, inside a folio split: the folio, whose queue entry
	 * goes if it splits (the page given may be a tail page, which the
	 * split makes a folio of its own). */
	__u64 queued_split_folio;
};

TAOD_SHARED struct {
	__uint(type, BPF_MAP_TYPE_TASK_STORAGE);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, int);
	__type(value, struct thp_path_ctx);
} thp_path SEC(".maps");

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
	c = bpf_map_lookup_elem(&cg_counters, &cgid);
	if (c)
		return c;
	/* Full: counted, and counted where the daemon still reads it. */
	stat_inc(TAOD_STAT_CG_COUNTERS_FULL);
	c = bpf_map_lookup_elem(&cg_overflow, &cgid);
	if (c)
		return c;
	bpf_map_update_elem(&cg_overflow, &cgid, &zero, BPF_NOEXIST);
	return bpf_map_lookup_elem(&cg_overflow, &cgid);
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

/*
 * The thread group that stands for the running task's memory: its mm's
 * owner's (@comm its name). A clone(CLONE_VM) helper is a thread group of
 * its own on the same mm: its faults and splits are charged to the owner,
 * which holds the THPs after the helper exits, so an offender named is a
 * live process to split. The running task's own when it has no mm.
 */
static __always_inline __u32 current_mm_tgid(char *comm)
{
	struct task_struct *task = (struct task_struct *)bpf_get_current_task();
	struct task_struct *owner = BPF_CORE_READ(task, mm, owner);
	__u32 tgid = owner ? BPF_CORE_READ(owner, tgid) : 0;

	if (!tgid) {
		bpf_get_current_comm(comm, TAOD_COMM_LEN);
		return bpf_get_current_pid_tgid() >> 32;
	}
	bpf_core_read_str(comm, TAOD_COMM_LEN, &owner->comm);
	return tgid;
}

static __always_inline struct taod_task_counters *current_task_get(__u64 cgid)
{
	char comm[TAOD_COMM_LEN];
	__u32 tgid = current_mm_tgid(comm);

	return task_get(tgid, cgid, comm);
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
 * The running task's user stack, if its memory is @tgid's and the daemon
 * marked it: a split charged to a top offender, in a syscall or fault of
 * its own or of a helper sharing its mm. One hash
 * lookup per split for everyone else.
 */
static __always_inline void sample_stack(void *ctx, __u32 tgid, __u32 cause)
{
	static const struct taod_split_stack zero;
	struct taod_split_stack *s;
	char comm[TAOD_COMM_LEN];
	long n;

	if (!tgid || tgid != current_mm_tgid(comm) || !bpf_map_lookup_elem(&stack_watch, &tgid))
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

/*
 * khugepaged and MADV_COLLAPSE: counted as the kernel counts
 * THP_COLLAPSE_ALLOC, once the new THP is allocated and charged, whether
 * the collapse then succeeds or not. Charged to the mm's owner's memcg.
 * Here for both tracepoint programs: on_collapse (thp_paths.bpf.c, before
 * 7.3) and on_collapse_order (sizes.bpf.c) at the PMD order.
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

#endif
