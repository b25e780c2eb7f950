/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The act stage: a safety gate in front of one kernel backend, chosen at
 * start (TAO, stock or dry-run). Every request decide hands over is carried
 * out or suppressed, and audited either way (see audit.h).
 */
#ifndef TAOD_ACT_H
#define TAOD_ACT_H

#include <stdbool.h>
#include <stdint.h>

#include "taod/act_settings.h"
#include "taod/action.h"
#include "taod/cgroup_tree.h"
#include "taod/config.h"
#include "taod/kernel_probe.h"

struct backoff_table;

/* What a backend needs to reach the kernel. */
struct act_ctx {
	const struct kernel_paths *k;
	const struct cgroup_tree *tree;
	const struct act_settings *s;
	struct backoff_table *busy_blocks; /* memory blocks that answered EBUSY */
	uint64_t (*now_ms)(void);	   /* monotonic; tests replace it */
};

/* What one backend call did. */
struct act_outcome {
	enum action_result result;
	int err;	  /* errno of the failed (or partial) write */
	uint64_t bytes;	  /* bytes acted on, charged to the byte budget */
	char detail[256]; /* what was written where, or why not */
};

/*
 * One backend. shatter and collapse get a byte budget (never 0); the others
 * ignore it. resize_zones reads the THP demand of guaranteed cgroups from
 * req->bytes.
 */
typedef void (*act_op_fn)(const struct act_ctx *c, const struct action_request *req,
			  uint64_t budget, struct act_outcome *o);

/* Counters a backend can read; zero when the kernel has none. */
struct act_stats {
	bool tao;
	uint64_t pgalloc_nosplit, pgalloc_nomerge;
	uint64_t thp_shatter_page, thp_shatter_page_failed, thp_shatter_page_discarded;
	uint64_t thp_hvo_page;
	uint64_t hvo_saved_bytes;	       /* 28 KiB per HVO'd THP */
	uint64_t nosplit_bytes, nomerge_bytes; /* online memory blocks of the zones */
	uint64_t block_bytes;		       /* one memory block */
};

/* Per-cgroup TAO memory.stat keys. */
struct act_cgroup_stats {
	uint64_t thp_split_page, thp_shatter_page, nosplit_thp, nomerge_thp;
	uint64_t hvo_saved_bytes;
};

struct act_backend_ops {
	const char *name;
	act_op_fn restrict_zones; /* `restrict` is a C keyword */
	act_op_fn grant;
	act_op_fn shatter;
	act_op_fn collapse;
	act_op_fn resize_zones;
	int (*read_stats)(const struct act_ctx *c, struct act_stats *out);
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

struct actor;
struct action_record;

/* @s, @k and @tree must outlive the actor (they are the daemon's). */
int actor_open(struct actor **out, const struct act_settings *s, const struct kernel_paths *k,
	       const struct cgroup_tree *tree, const struct act_backend_ops *backend);
void actor_close(struct actor *a);
/* After a reload: new settings, same backend, budgets and back-offs kept. */
void actor_set_settings(struct actor *a, const struct act_settings *s,
			const struct kernel_paths *k);
void actor_set_clock(struct actor *a, uint64_t (*now_ms)(void));
const char *actor_backend_name(const struct actor *a);
int actor_read_stats(struct actor *a, struct act_stats *out);
/*
 * Gate, carry out, audit. Fills @rec (may be NULL) with the audit record.
 * Never fails: failures are results.
 */
enum action_result actor_submit(struct actor *a, const struct action_request *req,
				struct action_record *rec);
struct audit_log *actor_audit(struct actor *a);
/* Called with every audited record, after the audit log has it. */
typedef void (*actor_record_fn)(void *ctx, const struct action_record *rec);
void actor_set_record_hook(struct actor *a, actor_record_fn fn, void *ctx);
/* decide's action sink: @actor is the struct actor. */
void actor_sink(void *actor, const struct action_request *req);
/*
 * decide's zone_view_fn: the NoSplit zone now and the target a resize for
 * @demand would aim at (demand + headroom, within bounds).
 */
int actor_zone_view(void *actor, uint64_t demand, struct zone_view *out);

#endif
