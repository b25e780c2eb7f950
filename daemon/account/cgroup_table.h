/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The table of cgroups as data: each cgroup's entry (counters, evidence,
 * samples), the table sorted by id and its lookup. The per-cgroup
 * accounting (cgroup_state.c) keeps it and the fold of removed cgroups
 * (cgroup_fold.c) reads and adds to it; neither calls the other for it.
 */
#ifndef TAOD_CGROUP_TABLE_H
#define TAOD_CGROUP_TABLE_H

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
	uint64_t thp_fault;   /* ... of which faults */
	uint64_t pmd_split;   /* PMD splits of THPs left partly mapped */
	uint64_t split_pages; /* base pages of the THPs split */
	/* Multi-size THP below the PMD (fentry only): bytes in the folios
	 * made (faulted, collapsed), and in those left partially mapped. */
	uint64_t mthp_alloc_bytes, mthp_broken_bytes;
	uint64_t fault_fallback; /* THP faults that fell back: the tenant wanted THPs */
	/* Partly mapped now (a gauge, where partly_counted: BPF counts it):
	 * PMD THPs, and bytes of the folios below the PMD size. */
	uint64_t partly_mapped_thps, partly_mapped_mthp_bytes;
	bool partly_counted;
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
	int watch;    /* the inotify watch on its directory (the pipeline's); 0: none */
	bool removed; /* inotify told its directory went: the next sweep drops it */
	struct taod_cg_counters counters; /* cumulative since the daemon started */
	/* ... the sum of: its row in cg_counters, as last read, and what was
	 * drained from cg_overflow (counted while cg_counters was full). */
	struct taod_cg_counters bpf_row, bpf_spilled;
	struct taod_cg_sizes sizes; /* large-folio events by order, cumulative */
	struct cg_evidence folded;  /* of removed descendants, cumulative */
	/* Per-size events (fault_alloc, partial, split; nr_anon unused) of
	 * removed descendants, cumulative: shown with the cgroup's own. */
	struct taod_cg_sizes folded_sizes;
	/* Folios partly mapped now (nr_partial) of removed descendants: their
	 * folios stay charged to their dying memcg, whose BPF row still
	 * counts them until its tombstone goes (cgroup_fold.c). */
	__s64 adopted_partial[TAOD_MAX_ORDER];
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
	bool memstat_read;   /* memory.stat was read once (the read of a new one waits) */
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
	bool partial_gauge;   /* the entries' sizes.nr_partial is counted (BPF) */
	bool sampled;	      /* a tick has sampled the table, at last_sample_ms */
	uint64_t last_sample_ms;
};

/* The entry of cgroup @id, or NULL. */
static inline struct cgroup_entry *cgroup_table_find(const struct cgroup_table *t, uint64_t id)
{
	return id_vec_find(&t->ids, id);
}
/* Told of each entry dropped (@gone) and each removed id no longer followed (@forget). */
typedef void (*cgroup_gone_fn)(void *ctx, const struct cgroup_entry *e);
typedef void (*cgroup_forget_fn)(void *ctx, uint64_t id);

#endif
