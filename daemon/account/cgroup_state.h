/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Per-cgroup accounting: the latest BPF counters and memory.stat figures of
 * every memory cgroup, a ring of recent samples, and rates over a window.
 */
#ifndef TAOD_CGROUP_STATE_H
#define TAOD_CGROUP_STATE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <linux/types.h>

#include "taod/thp_observe.h"
#include "common/id_vec.h"
#include "memstat.h"

/*
 * What a cgroup did with THPs, cumulative: the figures decide judges. A
 * cgroup's own (from BPF) plus those of its removed descendants, folded
 * into it when they went (cgroup_fold.c), so that hopping between child
 * cgroups loses nothing.
 */
struct cg_evidence {
	uint64_t thp_alloc;   /* fault + collapse */
	uint64_t pmd_split;   /* PMD splits of THPs left partly mapped */
	uint64_t split_pages; /* base pages of the THPs split */
	/* Multi-size THP below the PMD (fentry only): bytes in the folios
	 * made (faulted, collapsed), and in those left partially mapped. */
	uint64_t mthp_alloc_bytes, mthp_broken_bytes;
	uint64_t fault_fallback; /* THP faults that fell back: the tenant wanted THPs */
};

struct cg_sample {
	uint64_t t_ms;
	uint64_t thp_alloc; /* fault + collapse, cumulative */
	uint64_t pmd_split; /* cumulative */
	uint64_t anon_bytes;
	uint64_t thp_bytes;
};

struct cgroup_entry {
	uint64_t id;
	char *path;	    /* relative to the hierarchy root; NULL until the walk finds it */
	uint64_t parent_id; /* as the last walk found it; 0: root or not walked yet */
	uint64_t first_seen_ms;
	unsigned seen_gen;
	struct taod_cg_counters counters; /* cumulative since the daemon started */
	struct taod_cg_sizes sizes;	  /* large-folio events by order, cumulative */
	struct cg_evidence folded;	  /* of removed descendants, cumulative */
	/* Per-size events (fault_alloc, partial, split; nr_anon unused) of
	 * removed descendants, cumulative: shown with the cgroup's own. */
	struct taod_cg_sizes folded_sizes;
	/* An id BPF charged before any walk found it: its ancestors as BPF
	 * noted them (nearest first), so that it folds into one even if no
	 * walk ever sees it (made and removed between two ticks). */
	uint64_t bpf_ancestors[TAOD_CG_ANCESTORS];
	bool ancestry_asked;
	struct memstat mem;
	bool mem_ok;
	double coverage_pct; /* -1: no anon memory */
	double psi_some;     /* memory.pressure some avg10, percent (v2); -1: none read */
	double alloc_rate;   /* THP allocations per second over the rate window */
	double split_rate;   /* PMD splits per second over the rate window */
	bool memstat_due;    /* new, or its BPF counters moved: read memory.stat */
	struct cg_sample *ring;
	size_t ring_cap, ring_len, ring_head;
};

struct cgroup_table {
	union { /* the typed view of the same sorted vector */
		struct id_vec ids;
		struct {
			struct cgroup_entry **v; /* sorted by id */
			size_t n, cap;
		};
	};
	size_t ring_cap;
	unsigned gen;
	unsigned tree_gen;    /* moves when a cgroup is added, renamed, moved or dropped */
	struct id_vec tombs;  /* removed cgroups whose late events still fold (cgroup_fold.c) */
	uint64_t folded_lost; /* events of removed cgroups with no live ancestor found */
	bool unknown_ids;     /* BPF named ids the last walk did not find */
	bool sampled;	      /* a tick has sampled the table, at last_sample_ms */
	uint64_t last_sample_ms;
};

/* Deltas and coverage figures over a window ending at the newest sample. */
struct cg_window {
	uint64_t end_ms; /* the newest sample's time */
	uint64_t span_ms;
	uint64_t thp_alloc;
	uint64_t pmd_split;
	double coverage_min, coverage_mean, coverage_max; /* -1 when no anon */
	size_t samples;
};

void cgroup_table_init(struct cgroup_table *t, size_t ring_cap);
void cgroup_table_free(struct cgroup_table *t);
/* Samples kept per cgroup from now on; every ring keeps its newest ones. */
int cgroup_table_set_ring_cap(struct cgroup_table *t, size_t ring_cap);
void cgroup_table_begin_tick(struct cgroup_table *t);
/* The entry of cgroup @id, or NULL. */
static inline struct cgroup_entry *cgroup_table_find(const struct cgroup_table *t, uint64_t id)
{
	return id_vec_find(&t->ids, id);
}
/* Found by the tree walk this tick under @parent_id (creates, renames or moves). */
struct cgroup_entry *cgroup_table_touch(struct cgroup_table *t, uint64_t id, const char *path,
					uint64_t parent_id, uint64_t now_ms);
/*
 * Counters from BPF. Those of a removed cgroup fold into its live ancestor
 * (returns NULL); an id the walk has not seen gets one walk's grace, and
 * once its ancestry is known, a walk the next tick decides. Returns the
 * entry (NULL also when out of memory).
 */
struct cgroup_entry *cgroup_table_set_counters(struct cgroup_table *t, uint64_t id,
					       const struct taod_cg_counters *c, uint64_t now_ms);
/* Whether @e is an id no walk has found whose ancestry BPF was not asked. */
bool cgroup_entry_wants_ancestry(const struct cgroup_entry *e);
/* @a: as BPF noted it; NULL: BPF has none. */
void cgroup_entry_set_ancestry(struct cgroup_entry *e, const struct taod_cg_ancestry *a);
void cgroup_entry_set_memstat(struct cgroup_entry *e, const struct memstat *m, bool ok);
/* Appends a sample to every entry and updates rates over @rate_window_ms. */
void cgroup_table_sample(struct cgroup_table *t, uint64_t now_ms, uint64_t rate_window_ms);
/*
 * Drops entries not seen this tick, folding each one's evidence into its
 * nearest live ancestor; @gone is called for each before it goes, and
 * @forget (may be NULL) for each removed id whose late events are no
 * longer followed (its BPF counters can go). Returns entries dropped.
 */
typedef void (*cgroup_gone_fn)(void *ctx, const struct cgroup_entry *e);
typedef void (*cgroup_forget_fn)(void *ctx, uint64_t id);
size_t cgroup_table_sweep(struct cgroup_table *t, cgroup_gone_fn gone, cgroup_forget_fn forget,
			  void *ctx, uint64_t now_ms);

/* The entry's own evidence plus what its removed descendants folded in. */
void cgroup_entry_evidence(const struct cgroup_entry *e, struct cg_evidence *out);
void cg_evidence_of(const struct taod_cg_counters *c, struct cg_evidence *out);
void cg_evidence_add(struct cg_evidence *to, const struct cg_evidence *e);

uint64_t cg_thp_allocs(const struct taod_cg_counters *c);
/* Splits per allocation; 0 when there were no allocations. */
double cg_split_ratio(uint64_t splits, uint64_t allocs);
/* Rate between two cumulative readings; 0 for a non-positive span. */
double rate_per_s(uint64_t older, uint64_t newer, uint64_t span_ms);
/* The samples of the last @window_ms. */
int cgroup_entry_window(const struct cgroup_entry *e, uint64_t window_ms, struct cg_window *w);
/*
 * From the newest sample at or before @from_ms (the oldest if none is) to
 * the newest: windows that follow each other this way miss no event, even
 * when a tick comes late.
 */
int cgroup_entry_window_from(const struct cgroup_entry *e, uint64_t from_ms, struct cg_window *w);
/* The oldest sample's time; 0 without samples. */
uint64_t cgroup_entry_oldest_ms(const struct cgroup_entry *e);

#endif
