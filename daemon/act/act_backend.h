/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The act stage's backend interface: what a kernel backend (TAO, stock,
 * dry-run) gets to reach the kernel and what it reports back. The actor
 * (act.h) is its only caller.
 */
#ifndef TAOD_ACT_BACKEND_H
#define TAOD_ACT_BACKEND_H

#include <stdbool.h>
#include <stdint.h>

#include "config/act_settings.h"
#include "taod/action.h"
#include "observe/cgroup_tree.h"
#include "config/config.h"
#include "observe/kernel_probe.h"
#include "common/pressure_inputs.h"
#include "taod/action_cost.h"

struct backoff_table;

/*
 * When compaction may follow a shatter (contiguity.c): it is machine-wide,
 * so only under contiguity pressure, at most once per compact_interval.
 */
struct compact_gate {
	enum pressure_level pressure; /* as the account stage last read it */
	unsigned wanting;	      /* good tenants wanting THPs (decide's last pass) */
	uint64_t last_ms;	      /* the last compaction (monotonic); 0: none yet */
};

/* What a backend needs to reach the kernel. */
struct act_ctx {
	const struct kernel_paths *k;
	const struct cgroup_tree *tree;
	const struct act_settings *s;
	struct backoff_table *busy_blocks; /* memory blocks that answered EBUSY */
	uint64_t (*now_ms)(void);	   /* monotonic; tests replace it */
	const struct kernel_info *kernel;  /* the TAO features; NULL: all of them */
	struct compact_gate *compact;	   /* NULL: compaction ungated (tests) */
	/* The action under way's cost: compaction and drain charge their
	 * phases to it; NULL: not measured. */
	struct action_cost *cost;
	/* Where the cgroup walk last saw cgroup @id (NULL: unknown): a v1
	 * cgroup renamed keeps its id. NULL hook: only saved paths are tried. */
	const char *(*cgroup_path)(void *ctx, uint64_t id);
	void *cgroup_path_ctx;
};

/* What one backend call did. */
struct act_outcome {
	enum action_result result;
	int err;		       /* errno of the failed (or partial) write */
	uint64_t bytes;		       /* bytes acted on, charged to the byte budget */
	uint64_t gained_bytes;	       /* collapse: THP bytes it added */
	bool kernel_untouched;	       /* returned before any kernel call: no budget taken */
	char detail[256];	       /* what was written where, or why not */
	struct shatter_counts shatter; /* shatter through the split path: vmstat deltas */
};

/*
 * One kind's op in a backend. The kinds whose row says bytes (shatter,
 * collapse) get a byte budget (never 0); the others ignore it.
 * resize-zones reads the THP demand of guaranteed cgroups from req->bytes.
 */
typedef void (*act_op_fn)(const struct act_ctx *c, const struct action_request *req,
			  uint64_t budget, struct act_outcome *o);

/* Counters a backend can read; zero when the kernel has none. */
struct act_stats {
	bool tao;
	uint64_t pgalloc_nosplit, pgalloc_nomerge;
	uint64_t thp_shatter_page, thp_shatter_page_failed, thp_shatter_page_discarded;
	bool hvo_counted; /* vmstat has thp_hvo_page (not in the public TAO code) */
	uint64_t thp_hvo_page;
	uint64_t hvo_saved_bytes;	       /* 28 KiB per HVO'd THP */
	uint64_t nosplit_bytes, nomerge_bytes; /* online memory blocks of the zones */
	uint64_t block_bytes;		       /* one memory block; 0: sized at boot */
};

/* Per-cgroup TAO memory.stat keys. */
struct act_cgroup_stats {
	uint64_t thp_split_page, thp_shatter_page, nosplit_thp, nomerge_thp;
	uint64_t hvo_saved_bytes;
};

/* An expired or released restriction put back, for the audit log. */
typedef void (*act_restored_fn)(void *ctx, const struct action_record *rec);

struct act_backend_ops {
	const char *name;
	/* Its shatter writes debugfs split_huge_pages: the actor mounts
	 * debugfs before the child runs (debugfs_mount.h). */
	bool shatter_needs_debugfs;
	/*
	 * The op carrying out each action kind (action_kinds.h), by intent:
	 * [ACTION_RESTRICT], [ACTION_GRANT], [ACTION_SHATTER], ... NULL:
	 * unsupported (the actor says so; warn is the actor's own).
	 */
	act_op_fn op[ACTION_KIND_MAX];
	/* NULL, or why an op given above is off under @c's settings (NULL: on). */
	const char *(*withheld)(const struct act_ctx *c, enum action_kind k);
	int (*read_stats)(const struct act_ctx *c, struct act_stats *out);
	/*
	 * NULL, or puts back what a bounded action changed once its time is
	 * up, or all of it when @all (taod starting after a crash, or
	 * exiting), calling @fn with a record of each. Returns how many.
	 */
	int (*expire)(const struct act_ctx *c, bool all, act_restored_fn fn, void *ctx);
};

extern const struct act_backend_ops backend_tao_ops;
extern const struct act_backend_ops backend_stock_ops;
extern const struct act_backend_ops backend_dry_run_ops;

const struct act_backend_ops *act_backend_pick(enum act_backend_choice choice,
					       enum kernel_kind kind);
const char *act_backend_choice_name(enum act_backend_choice c);
void act_outcome_set(struct act_outcome *o, enum action_result r, int err, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

/* TAO per-cgroup counters from memory.stat text. */
int act_cgroup_stats_parse(const char *memstat_text, struct act_cgroup_stats *out);

#endif
