// SPDX-License-Identifier: GPL-2.0
#include "thp_observe.h"

#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "attach_plan.h"
#include "huge_zero_probe.h"
#include "common/log.h"
#include "mthp_probe.h"
#include "cg_counters.h"
#include "thp_observe.skel.h"
#include "common/sat_math.h"

struct thp_observe {
	struct thp_observe_bpf *skel;
	int ncpus;
	struct attach_plan plan; /* the one that loaded */
	char reason[256];
	void *percpu_buf;	     /* ncpus values of the largest map value */
	struct huge_zero_probe zero; /* held in THP paths mode before 6.2 */
	char sizes[160];	     /* what the per-size (mTHP) counters see here */
	bool partial_gauge;	     /* nr_partial is counted */
	size_t cg_rows;		     /* rows in cg_counters at the last reading */
};

/* Kernel function names for each exact-split program, newest first. */
static const char *const pmd_split_fns[] = {"__split_huge_pmd", NULL};
static const char *const folio_split_fns[] = {"__folio_split", "split_huge_page_to_list_to_order",
					      "split_huge_page_to_list", NULL};

static const char *find_kernel_fn(const struct btf *vmlinux, const char *const *names)
{
	for (; *names; names++)
		if (btf__find_by_name_kind(vmlinux, *names, BTF_KIND_FUNC) > 0)
			return *names;
	return NULL;
}

static bool has_fn(const struct btf *vmlinux, const char *name)
{
	return btf__find_by_name_kind(vmlinux, name, BTF_KIND_FUNC) > 0;
}

/* Whether struct/union @type_id has member @name, anonymous members searched. */
static bool has_member(const struct btf *btf, __u32 type_id, const char *name, int depth)
{
	const struct btf_type *t = btf__type_by_id(btf, type_id);
	const struct btf_member *m;

	if (!t || depth > 4 || !(btf_is_struct(t) || btf_is_union(t)))
		return false;
	m = btf_members(t);
	for (int i = 0; i < btf_vlen(t); i++, m++) {
		const char *n = btf__name_by_offset(btf, m->name_off);

		if (n && !strcmp(n, name))
			return true;
		if ((!n || !*n) && has_member(btf, m->type, name, depth + 1))
			return true;
	}
	return false;
}

/* 6.2+: a PMD split ends in an rmap call the THP paths programs see. */
static bool rmap_on_split(const struct btf *vmlinux)
{
	int id = btf__find_by_name_kind(vmlinux, "folio", BTF_KIND_STRUCT);

	return id > 0 && has_member(vmlinux, (__u32)id, "_entire_mapcount", 0);
}

/* The kernel's THP paths, as BTF names them (THP paths mode). */
struct thp_path_fns {
	const char *zero_get; /* mm_get_huge_zero_folio or _page */
	bool map_pf;	      /* map_anon_folio_pmd_pf (6.16+) counts fault allocations */
	bool split_locked;    /* split_huge_pmd_locked (6.10+) */
	bool rmap_pmd;	      /* folio_remove_rmap_pmd (6.8+), else page_remove_rmap */
	bool collapse_order;  /* mm_collapse_huge_page has the order (7.3+) */
	bool complete;	      /* everything the mode needs is there */
};

/*
 * The arguments of tracepoint @name, from its BTF prototype (typedef
 * btf_trace_NAME: a pointer to a function whose first parameter is the
 * program's context, void *, then the tracepoint's); -1 if BTF has none.
 */
static int tracepoint_args(const struct btf *vmlinux, const char *name)
{
	int id = btf__find_by_name_kind(vmlinux, name, BTF_KIND_TYPEDEF);
	const struct btf_type *t = id > 0 ? btf__type_by_id(vmlinux, (__u32)id) : NULL;

	t = t ? btf__type_by_id(vmlinux, t->type) : NULL;
	t = t && btf_is_ptr(t) ? btf__type_by_id(vmlinux, t->type) : NULL;
	return t && btf_is_func_proto(t) && btf_vlen(t) > 0 ? btf_vlen(t) - 1 : -1;
}

static struct thp_path_fns find_thp_path_fns(const struct btf *vmlinux)
{
	static const char *const zero_get_fns[] = {"mm_get_huge_zero_folio",
						   "mm_get_huge_zero_page", NULL};
	struct thp_path_fns t = {0};

	if (!vmlinux)
		return t;
	t.zero_get = find_kernel_fn(vmlinux, zero_get_fns);
	t.map_pf = has_fn(vmlinux, "map_anon_folio_pmd_pf");
	t.split_locked = has_fn(vmlinux, "split_huge_pmd_locked");
	t.rmap_pmd = has_fn(vmlinux, "folio_remove_rmap_pmd");
	/* (mm, isolated, status, order): 7.3's khugepaged collapses into sizes below the PMD. */
	t.collapse_order = tracepoint_args(vmlinux, "btf_trace_mm_collapse_huge_page") == 4;
	t.complete = t.zero_get && has_fn(vmlinux, "do_huge_pmd_anonymous_page") &&
		     (t.map_pf || has_fn(vmlinux, "pgtable_trans_huge_deposit")) &&
		     has_fn(vmlinux, "zap_huge_pmd") &&
		     (t.rmap_pmd || has_fn(vmlinux, "page_remove_rmap")) &&
		     btf__find_by_name_kind(vmlinux, "btf_trace_mm_collapse_huge_page",
					    BTF_KIND_TYPEDEF) > 0;
	return t;
}

static int libbpf_log(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	char buf[512];
	size_t n;

	/* The fentry probe makes libbpf warn when refused: expected, so debug. */
	if (level == LIBBPF_DEBUG)
		return 0;
	vsnprintf(buf, sizeof(buf), fmt, ap);
	n = strlen(buf);
	while (n && buf[n - 1] == '\n')
		buf[--n] = '\0';
	log_msg(LOG_DEBUG, "libbpf: %s", buf);
	return 0;
}

static struct thp_observe_bpf *open_skel(const struct taod_config *cfg, uint64_t huge_zero_pfn)
{
	LIBBPF_OPTS(bpf_object_open_opts, opts);
	struct thp_observe_bpf *skel;

	if (strcmp(cfg->k.btf, "/sys/kernel/btf/vmlinux"))
		opts.btf_custom_path = cfg->k.btf;
	skel = thp_observe_bpf__open_opts(&opts);
	if (!skel)
		return NULL;
	/* A PMD removal left unpaired this long is settled as a split. */
	skel->rodata->taod_cfg.stale_pending_ns = sat_mul_u64(cfg->unmap_pair_window_ms, 1000000);
	skel->rodata->taod_cfg.huge_zero_pfn = huge_zero_pfn;
	/* Sized by the config: a host with more cgroups than that has its
	 * newest ones counted in cg_overflow, and the drops are told. */
	bpf_map__set_max_entries(skel->maps.cg_counters, (__u32)cfg->cgroup_map_entries);
	bpf_map__set_max_entries(skel->maps.cg_parent, (__u32)cfg->cgroup_map_entries);
	bpf_map__set_max_entries(skel->maps.cg_sizes, (__u32)cfg->cgroup_map_entries);
	/* Every page allocation would run on_page_alloc: only when folios
	 * below PMD order can be THPs is that worth it. */
	if (!mthp_enabled(cfg->k.thp_sysfs)) {
		bpf_program__set_autoload(skel->progs.on_page_alloc, false);
		skel->rodata->taod_cfg.folio_alloc_from_events = 1;
	}
	return skel;
}

static struct btf_facts read_btf_facts(const struct btf *vmlinux)
{
	struct btf_facts f = {0};

	if (!vmlinux)
		return f;
	f.memcg_tracepoints =
	    btf__find_by_name_kind(vmlinux, "btf_trace_count_memcg_events", BTF_KIND_TYPEDEF) > 0 &&
	    btf__find_by_name_kind(vmlinux, "btf_trace_mod_memcg_lruvec_state", BTF_KIND_TYPEDEF) >
		0;
	f.memcg_functions =
	    btf__find_by_name_kind(vmlinux, "__count_memcg_events", BTF_KIND_FUNC) > 0 &&
	    btf__find_by_name_kind(vmlinux, "__mod_memcg_lruvec_state", BTF_KIND_FUNC) > 0;
	f.pmd_split_fn = find_kernel_fn(vmlinux, pmd_split_fns);
	f.folio_split_fn = find_kernel_fn(vmlinux, folio_split_fns);
	f.thp_path_fns = find_thp_path_fns(vmlinux).complete;
	return f;
}

/* THP paths mode: the fault, collapse, zap and split programs. */
static void select_thp_path_programs(struct thp_observe_bpf *skel, const struct thp_path_fns *t)
{
	__typeof__(skel->progs) *pr = &skel->progs;
	struct bpf_program *on[] = {pr->on_huge_fault_enter, pr->on_huge_fault_exit,
				    pr->on_huge_zero_get,    pr->on_zap_enter,
				    pr->on_zap_exit,	     pr->on_split_pmd_exit};

	for (size_t i = 0; i < sizeof(on) / sizeof(on[0]); i++)
		bpf_program__set_autoload(on[i], true);
	bpf_program__set_attach_target(pr->on_huge_zero_get, 0, t->zero_get);
	/* One of the two reads the tracepoint's arguments as this kernel has them. */
	bpf_program__set_autoload(pr->on_collapse, !t->collapse_order);
	bpf_program__set_autoload(pr->on_collapse_order, t->collapse_order);
	bpf_program__set_autoload(pr->on_map_anon_pmd, t->map_pf);
	bpf_program__set_autoload(pr->on_pmd_deposit, !t->map_pf);
	bpf_program__set_autoload(pr->on_rmap_pmd_removed, t->rmap_pmd);
	bpf_program__set_autoload(pr->on_page_rmap_removed, !t->rmap_pmd);
	bpf_program__set_autoload(pr->on_split_locked_enter, t->split_locked);
	bpf_program__set_autoload(pr->on_split_locked_exit, t->split_locked);
	skel->rodata->taod_cfg.fault_alloc_at_map = t->map_pf;
	skel->rodata->taod_cfg.thp_paths = 1;
}

/* Chooses the programs of @p: tracepoints or fentry for memcg events, or
 * the THP paths; the exact split programs or not. */
static void select_programs(struct thp_observe_bpf *skel, const struct attach_plan *p,
			    const struct btf_facts *f, const struct thp_path_fns *t)
{
	__typeof__(skel->progs) *pr = &skel->progs;
	bool memcg_tp = !p->memcg_fentry && !p->thp_paths;

	bpf_program__set_autoload(pr->on_memcg_event, memcg_tp);
	bpf_program__set_autoload(pr->on_lruvec_state, memcg_tp);
	bpf_program__set_autoload(pr->on_memcg_event_fn, p->memcg_fentry);
	bpf_program__set_autoload(pr->on_lruvec_state_fn, p->memcg_fentry);
	if (p->thp_paths)
		select_thp_path_programs(skel, t);
	bpf_program__set_autoload(pr->on_split_pmd, p->split_fentry);
	bpf_program__set_autoload(pr->on_split_folio, p->split_fentry);
	if (p->split_fentry) {
		bpf_program__set_attach_target(pr->on_split_pmd, 0, f->pmd_split_fn);
		bpf_program__set_attach_target(pr->on_split_folio, 0, f->folio_split_fn);
	}
}

/* Whether BTF's function @name takes @nargs arguments. */
static bool fn_takes(const struct btf *vmlinux, const char *name, int nargs)
{
	int id = btf__find_by_name_kind(vmlinux, name, BTF_KIND_FUNC);
	const struct btf_type *fn = id > 0 ? btf__type_by_id(vmlinux, (__u32)id) : NULL;
	const struct btf_type *proto = fn ? btf__type_by_id(vmlinux, fn->type) : NULL;

	return proto && btf_is_func_proto(proto) && btf_vlen(proto) == nargs;
}

/*
 * The folios held per size (nr_anon): added by the fault program, moved
 * by the split programs (which read the new order from the split
 * function's argument), removed by the uncharge programs at free.
 */
static void select_held_programs(struct thp_observe_bpf *skel, const struct btf_facts *f, bool held)
{
	skel->rodata->taod_cfg.size_held = held;
	skel->rodata->taod_cfg.split_new_order_arg =
	    f->folio_split_fn && !strcmp(f->folio_split_fn, "__folio_split") ? 1 : 2;
	bpf_program__set_autoload(skel->progs.on_uncharge, held);
	bpf_program__set_autoload(skel->progs.on_uncharge_folios, held);
}

/* The deferred split queue's functions, by kernel: the queue holds the
 * folios partly mapped (before 6.12 a folio joins it only then, and the
 * queueing function takes the folio alone). */
static const struct queue_fns {
	const char *queue, *free;
} queue_fns_by_kernel[] = {
    {"deferred_split_folio", "folio_undo_large_rmappable"}, /* 6.6 to 6.11 */
    {"deferred_split_huge_page", "free_transhuge_page"},    /* 6.1 */
};

/*
 * Before 6.12 (deferred_split_folio takes no partially_mapped flag) the
 * folios partly mapped now are the queue's, mirrored by
 * partial_queue.bpf.c: attached where BTF has the functions of one row
 * and the split function. Whether they are.
 */
static const struct queue_fns *queue_fns_of(const struct btf *vmlinux)
{
	size_t n = sizeof(queue_fns_by_kernel) / sizeof(queue_fns_by_kernel[0]);

	for (size_t i = 0; vmlinux && i < n; i++) {
		const struct queue_fns *q = &queue_fns_by_kernel[i];

		if (fn_takes(vmlinux, q->queue, 1) && has_fn(vmlinux, q->free))
			return q;
	}
	return NULL;
}

static bool select_queue_programs(struct thp_observe_bpf *skel, const struct btf *vmlinux,
				  const struct btf_facts *f)
{
	__typeof__(skel->progs) *pr = &skel->progs;
	const struct queue_fns *q = f->folio_split_fn ? queue_fns_of(vmlinux) : NULL;

	bpf_program__set_autoload(pr->on_partial_queued, q);
	bpf_program__set_autoload(pr->on_partial_freed, q);
	bpf_program__set_autoload(pr->on_partial_split_enter, q);
	bpf_program__set_autoload(pr->on_partial_split_exit, q);
	if (!q)
		return false;
	bpf_program__set_attach_target(pr->on_partial_queued, 0, q->queue);
	bpf_program__set_attach_target(pr->on_partial_freed, 0, q->free);
	bpf_program__set_attach_target(pr->on_partial_split_enter, 0, f->folio_split_fn);
	bpf_program__set_attach_target(pr->on_partial_split_exit, 0, f->folio_split_fn);
	return true;
}

/*
 * The per-size (mTHP) programs, where fentry is allowed: splits by order
 * (6.12+ split functions take the order), partial maps (6.12+
 * deferred_split_folio(folio, partially_mapped)), and fault allocations
 * while an mTHP size is enabled (their program runs at every anonymous
 * fault, see bpf/). Says in @o->sizes what they see.
 */
static void select_size_programs(struct thp_observe *o, const struct taod_config *cfg,
				 const struct btf *vmlinux, const struct btf_facts *f)
{
	__typeof__(o->skel->progs) *pr = &o->skel->progs;
	bool split = f->folio_split_fn && strcmp(f->folio_split_fn, "split_huge_page_to_list");
	bool partial = vmlinux && fn_takes(vmlinux, "deferred_split_folio", 2);
	bool mthp = mthp_enabled(cfg->k.thp_sysfs);
	bool fault = mthp && vmlinux && has_fn(vmlinux, "folio_add_new_anon_rmap");
	bool held = fault && split && has_fn(vmlinux, "__mem_cgroup_uncharge") &&
		    has_fn(vmlinux, "__mem_cgroup_uncharge_folios");
	bool collapse = bpf_program__autoload(pr->on_collapse_order); /* THP paths, 7.3+ */
	bool queue;

	bpf_program__set_autoload(pr->on_size_split_enter, split);
	bpf_program__set_autoload(pr->on_size_split_exit, split);
	if (split) {
		bpf_program__set_attach_target(pr->on_size_split_enter, 0, f->folio_split_fn);
		bpf_program__set_attach_target(pr->on_size_split_exit, 0, f->folio_split_fn);
	}
	bpf_program__set_autoload(pr->on_deferred_split, partial);
	bpf_program__set_autoload(pr->on_new_anon_rmap, fault);
	select_held_programs(o->skel, f, held);
	/* Partly mapped now: counted in at the partial map, out at the split
	 * and where a freed folio leaves the queue (6.13+, 6.12.118+), or
	 * the queue itself before 6.12. */
	o->partial_gauge = partial && split && has_fn(vmlinux, "__folio_unqueue_deferred_split");
	bpf_program__set_autoload(pr->on_unqueue_deferred, o->partial_gauge);
	queue = !partial && select_queue_programs(o->skel, vmlinux, f);
	o->partial_gauge = o->partial_gauge || queue;
	o->skel->rodata->taod_cfg.partial_gauge = o->partial_gauge;
	snprintf(o->sizes, sizeof(o->sizes), "fentry: %s%s%s%s%s%s%s",
		 fault	? "fault allocations, "
		 : mthp ? ""
			: "(no mTHP size enabled at start) ",
		 held ? "folios held, " : "", partial ? "partial maps, " : "",
		 queue		    ? "partly mapped now (deferred split queue), "
		 : o->partial_gauge ? "partly mapped now, "
				    : "",
		 collapse ? "collapses, " : "", split ? "splits" : "no splits",
		 split || partial || fault || collapse ? " per size" : "");
}

static int load_and_attach(struct thp_observe_bpf *skel)
{
	int r = thp_observe_bpf__load(skel);

	if (r)
		return r;
	bpf_program__set_autoattach(skel->progs.flush_pending, false);
	return thp_observe_bpf__attach(skel);
}

/* Tries each plan, best first; the first that loads and attaches wins. */
static int load_observer(struct thp_observe *o, const struct taod_config *cfg)
{
	struct btf *vmlinux = btf__load_vmlinux_btf();
	struct btf_facts facts = read_btf_facts(vmlinux);
	struct thp_path_fns thp_fns = find_thp_path_fns(vmlinux);
	struct attach_plan plans[ATTACH_PLANS_MAX];
	char why[200] = "";
	int n, r = -EOPNOTSUPP;

	if (facts.thp_path_fns && !rmap_on_split(vmlinux)) {
		r = huge_zero_probe_open(&o->zero);
		if (r) {
			log_info("no THP paths mode: huge zero page PFN unknown (%s)",
				 strerror(-r));
			facts.thp_path_fns = false;
		}
		r = -EOPNOTSUPP;
	}
	n = attach_plans(&facts, cfg->attach, plans, why, sizeof(why));

	for (int i = 0; i < n; i++) {
		o->skel = open_skel(cfg, o->zero.map ? o->zero.pfn : UINT64_MAX);
		if (!o->skel) {
			r = -errno;
			break;
		}
		select_programs(o->skel, &plans[i], &facts, &thp_fns);
		snprintf(o->sizes, sizeof(o->sizes), "%s",
			 mthp_enabled(cfg->k.thp_sysfs)
			     ? "tracepoint: folio allocations by order (page allocator), no "
			       "partial maps or splits per size"
			     : "tracepoint: none (no mTHP size enabled at start)");
		o->partial_gauge = false;
		if (plans[i].split_fentry)
			select_size_programs(o, cfg, vmlinux, &facts);
		r = load_and_attach(o->skel);
		if (!r) {
			o->plan = plans[i];
			snprintf(o->reason, sizeof(o->reason), "%s",
				 why[0]			 ? why
				 : plans[i].thp_paths	 ? "fentry attached to the THP paths"
				 : plans[i].split_fentry ? "fentry attached to split functions"
				 : cfg->attach == ATTACH_TRACEPOINT
				     ? "attach = tracepoint in config"
				     : "tracepoints");
			break;
		}
		thp_observe_bpf__destroy(o->skel);
		o->skel = NULL;
		snprintf(why, sizeof(why), "%s refused: %s", plans[i].mode, strerror(-r));
	}
	if (r)
		snprintf(o->reason, sizeof(o->reason), "%s", why);
	btf__free(vmlinux);
	return r;
}

int thp_observe_open(struct thp_observe **out, const struct taod_config *cfg)
{
	struct thp_observe *o = calloc(1, sizeof(*o));
	size_t biggest = sizeof(struct taod_cg_counters);
	int r;

	if (!o)
		return -ENOMEM;
	libbpf_set_print(libbpf_log);
	o->ncpus = libbpf_num_possible_cpus();
	if (o->ncpus <= 0) {
		free(o);
		return -EINVAL;
	}
	if (sizeof(struct taod_task_counters) > biggest)
		biggest = sizeof(struct taod_task_counters);
	o->percpu_buf = calloc((size_t)o->ncpus, (biggest + 7) & ~(size_t)7);
	r = o->percpu_buf ? load_observer(o, cfg) : -ENOMEM;
	if (r) {
		log_err("cannot load BPF programs: %s (%s)", strerror(-r), o->reason);
		thp_observe_close(o);
		return r;
	}
	log_info("observation mode: %s (%s)", thp_observe_mode(o), o->reason);
	*out = o;
	return 0;
}

void thp_observe_close(struct thp_observe *o)
{
	if (!o)
		return;
	thp_observe_bpf__destroy(o->skel);
	huge_zero_probe_close(&o->zero);
	free(o->percpu_buf);
	free(o);
}

const char *thp_observe_mode(const struct thp_observe *o)
{
	return o->plan.mode;
}

const char *thp_observe_mode_reason(const struct thp_observe *o)
{
	return o->reason;
}

const char *thp_observe_sizes_mode(const struct thp_observe *o)
{
	return o->sizes;
}

bool thp_observe_partial_gauge(const struct thp_observe *o)
{
	return o->partial_gauge;
}

int thp_observe_read_sizes(struct thp_observe *o, cg_sizes_fn fn, void *ctx)
{
	int fd = bpf_map__fd(o->skel->maps.cg_sizes);
	__u64 key, next, *prev = NULL;
	struct taod_cg_sizes s;

	while (!bpf_map_get_next_key(fd, prev, &next)) {
		key = next;
		prev = &key;
		if (!bpf_map_lookup_elem(fd, &key, &s))
			fn(ctx, key, &s);
	}
	return errno == ENOENT ? 0 : -errno;
}

int thp_observe_flush(struct thp_observe *o)
{
	int fd = bpf_program__fd(o->skel->progs.flush_pending);

	if (o->plan.thp_paths) /* nothing is left pending to settle */
		return 0;

	for (int cpu = 0; cpu < o->ncpus; cpu++) {
		LIBBPF_OPTS(bpf_test_run_opts, opts, .cpu = (__u32)cpu,
			    .flags = BPF_F_TEST_RUN_ON_CPU);
		int r = bpf_prog_test_run_opts(fd, &opts);

		if (r && errno != ENXIO) /* ENXIO: CPU offline or absent */
			return -errno;
	}
	return 0;
}

#define SUM_FIELD(dst, vals, n, f)                                                                 \
	do {                                                                                       \
		(dst)->f = 0;                                                                      \
		for (int i_ = 0; i_ < (n); i_++)                                                   \
			(dst)->f += (vals)[i_].f;                                                  \
	} while (0)

static void sum_task(const struct taod_task_counters *v, int n, struct taod_task_counters *s)
{
	int newest = 0;

	SUM_FIELD(s, v, n, thp_fault_alloc);
	SUM_FIELD(s, v, n, pmd_unmap_whole);
	SUM_FIELD(s, v, n, pmd_split);
	SUM_FIELD(s, v, n, pmd_split_pages);
	SUM_FIELD(s, v, n, split_exact);
	SUM_FIELD(s, v, n, large_folio_alloc);
	for (int c = 0; c < TAOD_CAUSE_MAX; c++)
		SUM_FIELD(s, v, n, pmd_split_by_cause[c]);
	SUM_FIELD(s, v, n, mthp_fault_alloc);
	SUM_FIELD(s, v, n, mthp_partial);
	SUM_FIELD(s, v, n, mthp_split);
	/* Identity: any CPU copy that saw the task carries it. */
	for (int i = 0; i < n; i++)
		if (v[i].cgroup_id)
			newest = i;
	s->cgroup_id = v[newest].cgroup_id;
	memcpy(s->comm, v[newest].comm, sizeof(s->comm));
	s->comm[TAOD_COMM_LEN - 1] = '\0';
}

int thp_observe_read_cgroups(struct thp_observe *o, cg_counters_fn fn, void *ctx)
{
	int fd = bpf_map__fd(o->skel->maps.cg_counters);
	__u64 key, next, *prev = NULL;
	struct taod_cg_counters sum;

	size_t rows = 0;

	while (!bpf_map_get_next_key(fd, prev, &next)) {
		key = next;
		prev = &key;
		if (bpf_map_lookup_elem(fd, &key, o->percpu_buf))
			continue; /* deleted meanwhile */
		rows++;
		cg_counters_sum(o->percpu_buf, o->ncpus, &sum);
		fn(ctx, key, &sum);
	}
	o->cg_rows = rows;
	return errno == ENOENT ? 0 : -errno;
}

size_t thp_observe_cgroup_rows(const struct thp_observe *o)
{
	return o->cg_rows;
}

/*
 * Takes @key's value out of map @fd into @buf: 0, or -ENOENT when it has
 * none. Atomic where the kernel has it (5.14+); else a count made between
 * the two calls is lost, which only a full map or a removed cgroup risks.
 */
static int take_elem(int fd, const void *key, void *buf)
{
	if (!bpf_map_lookup_and_delete_elem(fd, key, buf))
		return 0;
	if (errno == ENOENT || bpf_map_lookup_elem(fd, key, buf))
		return -ENOENT;
	bpf_map_delete_elem(fd, key);
	return 0;
}

int thp_observe_drain_overflow(struct thp_observe *o, cg_counters_fn fn, void *ctx)
{
	int fd = bpf_map__fd(o->skel->maps.cg_overflow);
	__u64 keys[TAOD_CG_OVERFLOW], *prev = NULL;
	struct taod_cg_counters sum;
	size_t n = 0;

	/* Keys first: deleting while walking would restart the walk. */
	while (n < TAOD_CG_OVERFLOW && !bpf_map_get_next_key(fd, prev, &keys[n])) {
		prev = &keys[n];
		n++;
	}
	for (size_t i = 0; i < n; i++) {
		if (take_elem(fd, &keys[i], o->percpu_buf))
			continue;
		cg_counters_sum(o->percpu_buf, o->ncpus, &sum);
		fn(ctx, keys[i], &sum);
	}
	return 0;
}

int thp_observe_forget_cgroup(struct thp_observe *o, uint64_t cgroup_id)
{
	__u64 key = cgroup_id;

	if (bpf_map_delete_elem(bpf_map__fd(o->skel->maps.cg_counters), &key) && errno != ENOENT)
		return -errno;
	if (bpf_map_delete_elem(bpf_map__fd(o->skel->maps.cg_parent), &key) && errno != ENOENT)
		return -errno;
	if (bpf_map_delete_elem(bpf_map__fd(o->skel->maps.cg_sizes), &key) && errno != ENOENT)
		return -errno;
	return 0;
}

static bool sizes_gauges_live(const struct taod_cg_sizes *s)
{
	for (int i = 0; i < TAOD_MAX_ORDER; i++)
		if (s->nr_partial[i] || s->nr_anon[i])
			return true;
	return false;
}

int thp_observe_take_cgroup(struct thp_observe *o, uint64_t cgroup_id, struct cg_taken *out)
{
	__u64 key = cgroup_id;

	memset(out, 0, sizeof(*out));
	out->has_counters = !take_elem(bpf_map__fd(o->skel->maps.cg_counters), &key, o->percpu_buf);
	if (out->has_counters)
		cg_counters_sum(o->percpu_buf, o->ncpus, &out->counters);
	out->has_sizes =
	    !bpf_map_lookup_elem(bpf_map__fd(o->skel->maps.cg_sizes), &key, &out->sizes);
	out->sizes_kept = out->has_sizes && sizes_gauges_live(&out->sizes);
	if (out->has_sizes && !out->sizes_kept)
		out->has_sizes = !take_elem(bpf_map__fd(o->skel->maps.cg_sizes), &key, &out->sizes);
	if (bpf_map_delete_elem(bpf_map__fd(o->skel->maps.cg_parent), &key) && errno != ENOENT)
		return -errno;
	return 0;
}

int thp_observe_cgroup_ancestry(struct thp_observe *o, uint64_t cgroup_id,
				struct taod_cg_ancestry *out)
{
	__u64 key = cgroup_id;

	if (bpf_map_lookup_elem(bpf_map__fd(o->skel->maps.cg_parent), &key, out))
		return -errno;
	return 0;
}

int thp_observe_task_sizes(struct thp_observe *o, uint32_t tgid, struct taod_task_sizes *out)
{
	if (bpf_map_lookup_elem(bpf_map__fd(o->skel->maps.task_sizes), &tgid, out))
		return -errno;
	return 0;
}

int thp_observe_read_tasks(struct thp_observe *o, task_counters_fn fn, void *ctx)
{
	int fd = bpf_map__fd(o->skel->maps.task_counters);
	__u32 key, next, *prev = NULL;
	struct taod_task_counters sum;

	while (!bpf_map_get_next_key(fd, prev, &next)) {
		key = next;
		prev = &key;
		if (bpf_map_lookup_elem(fd, &key, o->percpu_buf))
			continue;
		sum_task(o->percpu_buf, o->ncpus, &sum);
		fn(ctx, key, &sum);
	}
	return errno == ENOENT ? 0 : -errno;
}

int thp_observe_stats(struct thp_observe *o, uint64_t out[TAOD_STAT_MAX])
{
	int fd = bpf_map__fd(o->skel->maps.stats);
	__u64 *vals = o->percpu_buf;

	for (__u32 k = 0; k < TAOD_STAT_MAX; k++) {
		out[k] = 0;
		if (bpf_map_lookup_elem(fd, &k, vals))
			return -errno;
		for (int c = 0; c < o->ncpus; c++)
			out[k] += vals[c];
	}
	return 0;
}

int thp_observe_costs(struct thp_observe *o, struct bpf_prog_cost *out, size_t max)
{
	struct bpf_program *prog;
	size_t n = 0;

	bpf_object__for_each_program (prog, o->skel->obj) {
		struct bpf_prog_info info;
		__u32 len = sizeof(info);
		int fd = bpf_program__fd(prog);

		if (fd < 0 || n >= max)
			continue;
		memset(&info, 0, sizeof(info));
		if (bpf_obj_get_info_by_fd(fd, &info, &len))
			continue;
		snprintf(out[n].name, sizeof(out[n].name), "%s", bpf_program__name(prog));
		out[n].run_cnt = info.run_cnt;
		out[n].run_time_ns = info.run_time_ns;
		n++;
	}
	return (int)n;
}

int thp_observe_watch_stacks(struct thp_observe *o, const uint32_t *tgids, size_t n)
{
	int fd = bpf_map__fd(o->skel->maps.stack_watch);
	__u32 key, next, *prev = NULL;
	__u8 on = 1;
	size_t i;

	/* Unmark the tasks not in the list, then mark the list. */
	while (!bpf_map_get_next_key(fd, prev, &next)) {
		key = next;
		for (i = 0; i < n && tgids[i] != key; i++)
			;
		if (i == n && !bpf_map_delete_elem(fd, &key))
			continue; /* deleted: the walk goes on from the start */
		prev = &key;
	}
	for (i = 0; i < n && i < TAOD_STACK_WATCH; i++) {
		key = tgids[i];
		if (bpf_map_update_elem(fd, &key, &on, BPF_ANY))
			return -errno;
	}
	return 0;
}

int thp_observe_split_stack(struct thp_observe *o, uint32_t tgid, struct taod_split_stack *out)
{
	__u32 key = tgid;

	if (bpf_map_lookup_elem(bpf_map__fd(o->skel->maps.split_stacks), &key, out))
		return -errno;
	if (out->nframes > TAOD_STACK_FRAMES)
		out->nframes = TAOD_STACK_FRAMES;
	return 0;
}
