/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * Layout of the maps shared by the BPF programs (bpf/thp_observe/) and
 * their loader (daemon/observe/thp_observe.c). Counters are monotonic and
 * per-CPU; the daemon sums CPUs and takes deltas per tick.
 * Contract: bpf -> observe (the maps both sides read and write).
 */
#ifndef TAOD_THP_OBSERVE_H
#define TAOD_THP_OBSERVE_H

#define TAOD_MAX_ORDER	 11 /* orders 0..10 counted for large folios */
#define TAOD_COMM_LEN	 16
#define TAOD_MAX_CGROUPS 16384 /* default of [kernel] cgroup_map_entries */
#define TAOD_CG_OVERFLOW 1024  /* map "cg_overflow": cgroups counted past a full cg_counters */
#define TAOD_MAX_TASKS	 8192
/* Map "queued_folios": large folios partly mapped now, before 6.12 (a
 * 2 MiB THP each: 512 GiB stranded before one goes uncounted). */
#define TAOD_MAX_QUEUED_FOLIOS 262144

#ifndef __bpf__
#include <linux/bpf.h> /* struct bpf_stack_build_id (the BPF side has vmlinux.h) */
#endif

/*
 * What a PMD split happened under, told from the task that ran it: its
 * syscall, a page fault (copy-on-write of a THP shared after fork), or a
 * kernel thread. One list: the BPF programs use the enum, the daemon the
 * names (split_cause.c), both from this X-macro.
 */
#define TAOD_SPLIT_CAUSES(X)                                                                       \
	X(TAOD_CAUSE_OTHER, "other")			/* another syscall or context */           \
	X(TAOD_CAUSE_COW, "cow")			/* page fault: copy-on-write */            \
	X(TAOD_CAUSE_MUNMAP, "munmap")			/* munmap, part of a THP */                \
	X(TAOD_CAUSE_MADV_DONTNEED, "madvise_dontneed") /* MADV_DONTNEED(_LOCKED) */               \
	X(TAOD_CAUSE_MADV_FREE, "madvise_free")		/* MADV_FREE */                            \
	X(TAOD_CAUSE_MADV_PAGEOUT, "madvise_pageout")	/* MADV_PAGEOUT, MADV_COLD */              \
	X(TAOD_CAUSE_MADV_OTHER, "madvise_other")	/* any other advice */                     \
	X(TAOD_CAUSE_MPROTECT, "mprotect")		/* mprotect, pkey_mprotect */              \
	X(TAOD_CAUSE_MREMAP, "mremap")			/* mremap */                               \
	X(TAOD_CAUSE_BRK, "brk")			/* brk */                                  \
	X(TAOD_CAUSE_EXIT, "exit")			/* exit, exit_group */                     \
	X(TAOD_CAUSE_MIGRATION, "migration")		/* move_pages, mbind, kcompactd ... */     \
	X(TAOD_CAUSE_KHUGEPAGED, "khugepaged")		/* khugepaged */                           \
	X(TAOD_CAUSE_RECLAIM, "reclaim")		/* kswapd */

#define TAOD_CAUSE_ENUM_(id, name) id,
enum taod_split_cause { TAOD_SPLIT_CAUSES(TAOD_CAUSE_ENUM_) TAOD_CAUSE_MAX };
#undef TAOD_CAUSE_ENUM_

/*
 * The per-cgroup counters, described once. The BPF programs count into the
 * fields by name; the daemon derives from this list the per-CPU sum
 * (cg_counters.c), the `cgroups` rows of the control protocol, the metric
 * families and the history's columns. Each row:
 *   X(field, json, history, metric, help)
 *   field    member of struct taod_cg_counters
 *   json     its name in the protocol (docs/protocol.md, in this order)
 *            and, when kept, the history's columns `json` and `d_json`
 *   history  the history schema version whose migration adds those
 *            columns; 0: not kept
 *   metric   its Prometheus counter family, "" for none; help: its HELP
 * A new counter: a row here, the BPF code that counts it, its name in
 * docs/protocol.md and docs/operations.md and, when kept in history, a
 * migration step (history_schema.c) at the version its row names.
 */
#define TAOD_CG_COUNTERS(X)                                                                        \
	X(thp_fault_alloc, "thp_fault_alloc", 0, "", "")       /* THP_FAULT_ALLOC */               \
	X(thp_collapse_alloc, "thp_collapse_alloc", 0, "", "") /* THP_COLLAPSE_ALLOC */            \
	X(thp_fault_fallback, "thp_fault_fallback", 0, "taod_cgroup_thp_fault_fallbacks_total",    \
	  "THP faults that fell back to base pages since taod started.")                           \
	X(pmd_map_pages, "pmd_mapped_pages", 0, "", "") /* NR_ANON_THPS positive deltas, pages */  \
	X(pmd_split, "pmd_split", 1, "taod_cgroup_pmd_splits_total",                               \
	  "PMD mappings split, folio left partially mapped, since taod started.")                  \
	X(pmd_split_pages, "pmd_split_pages", 0, "", "") /* pages of the PMDs split */             \
	X(pmd_unmap_whole, "pmd_unmap_whole", 1, "taod_cgroup_pmd_whole_unmaps_total",             \
	  "PMD-mapped THPs unmapped whole since taod started.")                                    \
	X(split_exact, "split_exact", 0, "", "") /* split function entries (fentry mode) */

/* Per cgroup (key: __u64 cgroup id as seen by memcg tracepoints). */
#define TAOD_CG_FIELD_(field, ...) __u64 field;
struct taod_cg_counters {
	TAOD_CG_COUNTERS(TAOD_CG_FIELD_)
	__u64 folio_alloc[TAOD_MAX_ORDER]; /* movable compound allocs by order */
};
#undef TAOD_CG_FIELD_

/*
 * Map "cg_parent" (LRU, key: __u64 cgroup id): a cgroup's ancestors, nearest
 * first (0 past the root), recorded when it is first charged. A cgroup made
 * and removed between two ticks is never seen by the daemon's walk; its
 * ancestry lets the daemon fold it into the nearest ancestor it knows.
 */
#define TAOD_CG_ANCESTORS 4

struct taod_cg_ancestry {
	__u64 id[TAOD_CG_ANCESTORS];
};

/* Per task (key: __u32 tgid), kept in an LRU so it stays bounded. */
struct taod_task_counters {
	__u64 cgroup_id;
	char comm[TAOD_COMM_LEN];
	__u64 thp_fault_alloc;
	__u64 pmd_unmap_whole;
	__u64 pmd_split;
	__u64 pmd_split_pages;
	__u64 split_exact;
	__u64 large_folio_alloc;		  /* orders >= 2, PMD order included */
	__u64 pmd_split_by_cause[TAOD_CAUSE_MAX]; /* pmd_split, by enum taod_split_cause */
	/* Multi-size THP (orders 2 to PMD-1), where fentry sees them: */
	__u64 mthp_fault_alloc; /* folios mapped at fault */
	__u64 mthp_partial;	/* folios left partially mapped by this task */
	__u64 mthp_split;	/* folios split by this task */
};

/*
 * The per-size events (multi-size THP, issue 17), their layout only: what
 * the kernel counts per folio size in
 * /sys/kernel/mm/transparent_hugepage/hugepages-<N>kB/stats/, per memcg of
 * the folio (struct taod_cg_sizes) and per task (struct taod_task_sizes),
 * a count per folio order each, in this order. The BPF programs count
 * into the fields by name. How taod names and shows each (protocol name,
 * history version, words) is the daemon's table, SIZE_EVENTS in
 * daemon/observe/size_events.h, a row per event in this order: a change
 * of wording there rebuilds no BPF object.
 * A new event: its field here (fields are added before nr_anon, at the end
 * of the events), its row there, the BPF code that counts it, a history
 * migration step at its version, and its name in docs/protocol.md,
 * docs/architecture.md, docs/operations.md, man/taoctl.8.
 */
#define TAOD_SIZE_EVENTS(X)                                                                        \
	/* anon_fault_alloc: mapped at fault, orders 2..PMD-1 */                                   \
	X(fault_alloc)                                                                             \
	/* split_deferred: became partially mapped */                                              \
	X(partial)                                                                                 \
	/* split: split successfully, by the order it had */                                       \
	X(split)                                                                                   \
	/* collapse_alloc: allocated to collapse into, by khugepaged (7.3+: below the PMD) */      \
	X(collapse)

#define TAOD_SIZE_FIELD_(field) __u64 field[TAOD_MAX_ORDER];

/*
 * Per cgroup (map "cg_sizes", key: __u64 cgroup id), per folio order: the
 * per-size events, charged to the folio's memcg. Shared by the CPUs, not
 * per CPU: these events are rare (one per large folio, never per base
 * page), so an atomic add costs less than a per-CPU copy of every
 * cgroup's counters. Filled only where fentry is allowed (collapses: where
 * the collapse tracepoint has the order).
 */
struct taod_cg_sizes {
	TAOD_SIZE_EVENTS(TAOD_SIZE_FIELD_)
	/* nr_anon: anonymous folios of each order (2 to the PMD order) that
	 * live in the memcg: added when first mapped, removed when split or
	 * freed. A gauge, not monotonic; times the size it is the bytes the
	 * cgroup holds in folios of that size (a partly unmapped folio stays
	 * whole until split, as in the kernel's count). */
	__s64 nr_anon[TAOD_MAX_ORDER];
	/* nr_partial: folios of each order (2 to the PMD order) of the memcg
	 * partly mapped now: added when a PTE unmap leaves one so (the
	 * kernel's split_deferred), removed when it is split or freed (the
	 * kernel's nr_anon_partially_mapped, per memcg). A gauge: the
	 * contiguity a tenant strands, for as long as it lasts (issue 26). */
	__s64 nr_partial[TAOD_MAX_ORDER];
};

/*
 * Per task (map "task_sizes", key: __u32 tgid, an LRU of its own), per
 * folio order below the PMD: the per-size events the task caused in
 * memory it owns (its identity is in task_counters), at the same offsets
 * as in struct taod_cg_sizes. Shared by the CPUs, as cg_sizes.
 */
struct taod_task_sizes {
	TAOD_SIZE_EVENTS(TAOD_SIZE_FIELD_)
};
#undef TAOD_SIZE_FIELD_

/*
 * User stacks of splits, sampled only for the few tasks the daemon marks
 * in map "stack_watch" (the top offenders): per task, the last one.
 */
#define TAOD_STACK_WATCH  16 /* tasks marked at once */
#define TAOD_STACK_FRAMES 8

struct taod_split_stack {
	__u64 samples; /* splits sampled */
	__u32 cause;   /* enum taod_split_cause of the last one */
	__u32 nframes;
	/* build-id + file offset, or the bare IP where the kernel could not
	 * read the build-id (status BPF_STACK_BUILD_ID_IP: under mmap_lock,
	 * as in munmap or mprotect) */
	struct bpf_stack_build_id frames[TAOD_STACK_FRAMES];
};

/* One NR_ANON_THPS or NR_ANON_MAPPED drop, remembered for pairing. */
struct taod_anon_event {
	__u64 cgroup_id;
	__u64 ts_ns;
	__s32 pages; /* negative delta; 0 when empty */
	__u32 tgid;
	char comm[TAOD_COMM_LEN];
	__u32 cause; /* enum taod_split_cause, if it turns out a split */
	__u32 pad;
};

/*
 * Per CPU: a PMD removal waiting to be told whole unmap or split, and
 * the last NR_ANON_MAPPED drop (kernels that update it first).
 */
struct taod_unmap_state {
	struct taod_anon_event pending;
	struct taod_anon_event last_mapped;
};

/* Per-CPU event counters of the programs themselves (map "stats"). */
enum taod_stat {
	TAOD_STAT_MEMCG_EVENTS,
	TAOD_STAT_LRUVEC_EVENTS,
	TAOD_STAT_PAGE_ALLOC_EVENTS,
	TAOD_STAT_SPLIT_EVENTS,
	TAOD_STAT_PENDING_FLUSHED,
	TAOD_STAT_THP_PATH_EVENTS, /* huge faults, PMD zaps and splits (THP paths) */
	TAOD_STAT_MTHP_EVENTS,	   /* per-size programs: large-folio faults, partial maps, splits */
	/* Events whose cgroup found its map full: counted in cg_overflow
	 * instead (cg_counters), or not at all (cg_sizes). Not events of
	 * their own: a status and an alert, never added to the totals. */
	TAOD_STAT_CG_COUNTERS_FULL,
	TAOD_STAT_CG_SIZES_FULL,
	/* Folios left partly mapped that found queued_folios full: not in
	 * their cgroup's nr_partial (kernels before 6.12). */
	TAOD_STAT_QUEUED_FOLIOS_FULL,
	TAOD_STAT_MAX,
};

/* Knobs the daemon sets in .rodata before load. */
struct taod_bpf_config {
	__u64 stale_pending_ns; /* pair window; pending older than this is a split */
	__u32 pmd_pages;	/* base pages in a PMD mapping */
	__u32 pmd_order;
	/* mm_page_alloc not attached (no mTHP size enabled): count each THP
	 * allocation event as a PMD-order folio. */
	__u32 folio_alloc_from_events;
	/* THP paths mode: map_anon_folio_pmd_pf counts fault allocations;
	 * do_huge_pmd_anonymous_page's exit counts only fallbacks. */
	__u32 fault_alloc_at_map;
	__u32 thp_paths; /* THP paths mode: PMD splits mark the task's context */
	/* The split function's argument holding the new order (6.12: 2,
	 * __folio_split: 1), for the per-size folio counts. */
	__u32 split_new_order_arg;
	/* Before 6.2 a PMD split leaves no rmap call to see: it is told from
	 * the PMD before and after, and the huge zero page's PMD (this PFN,
	 * which taod keeps mapped) is not a THP. */
	__u64 huge_zero_pfn;
	/* The folios held per size (nr_anon) are counted: the fault and
	 * release programs are both attached. */
	__u32 size_held;
	/* The folios partly mapped now (nr_partial) are counted: the partial
	 * map, split and unqueue programs are all attached (6.12+), or the
	 * deferred split queue's (before 6.12, partial_queue.bpf.c). */
	__u32 partial_gauge;
};

#endif
