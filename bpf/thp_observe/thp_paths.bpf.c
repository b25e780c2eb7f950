// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * fentry on the kernel's split functions (optional, probed): splits
 * counted exactly, in every mode where the kernel allows fentry (not
 * under lockdown), with the memcg programs or with the THP paths.
 *
 * THP paths mode (fentry, wherever BTF has every function it needs: 6.1
 * and later, each program naming the kernels it serves): faults,
 * collapses, zaps and PMD splits taken where the kernel handles huge
 * pages, so a base-page fault runs no program at all; the memcg programs
 * (memcg.bpf.c) are not loaded then.
 */
#include "shared.bpf.h"

/* Since 6.2 a PMD split ends in the rmap removal of the PMD mapping (and
 * struct folio has _entire_mapcount); 6.1 drops the mapcount inline. */
static __always_inline bool rmap_on_split(void)
{
	return bpf_core_field_exists(((struct folio *)0)->_entire_mapcount);
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

/* A collapse, before 7.3: the tracepoint has no order, every collapse is
 * to the PMD size (count_pmd_collapse in shared.bpf.h). */
SEC("?tp_btf/mm_collapse_huge_page")
int BPF_PROG(on_collapse, struct mm_struct *mm, int isolated, int status)
{
	return count_pmd_collapse(mm, isolated, status);
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
