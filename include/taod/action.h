/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The contract between decide (daemon/decide/) and act (daemon/act/).
 * decide judges cgroups and asks for actions; act passes every request
 * through the safety gate (mode/dry-run, allowlist, rate limits, vanished
 * cgroups, back-off) and then a kernel backend, and records each request,
 * carried out or suppressed, in the audit log.
 * Contract: decide -> act (and the records report and control show).
 */
#ifndef TAOD_ACTION_H
#define TAOD_ACTION_H

#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "common/action_kinds.h" /* enum action_kind: the table of kinds */
#include "taod/action_cost.h"

enum action_result {
	RESULT_DONE,
	RESULT_FAILED,	     /* backend error: errno recorded, retried with back-off */
	RESULT_DRY_RUN,	     /* policy or global mode says observe only */
	RESULT_RATE_LIMITED, /* actions/min or bytes/min budget spent */
	RESULT_ALLOWLISTED,  /* cgroup (or root, or taod's own) is never acted on */
	RESULT_VANISHED,     /* cgroup or task gone */
	RESULT_BACKING_OFF,  /* an earlier failure's back-off has not expired */
	RESULT_UNSUPPORTED,  /* the backend has no such lever */
	RESULT_NO_GAIN,	     /* carried out, changed nothing (a collapse that collapsed nothing) */
	RESULT_NOT_POSSIBLE, /* the machine cannot do it now (no free 2 MiB block to collapse into)
			      */
	RESULT_MAX,
};

struct action_request {
	enum action_kind kind;
	uint64_t cgroup_id;
	/*
	 * Relative to the hierarchy root; "" or NULL for machine-wide actions.
	 * Borrowed: the caller's string, valid during actor_submit() only (a
	 * cgroup path has no length limit, so no copy of it is embedded here);
	 * the audit ring keeps its own copy.
	 */
	const char *cgroup;
	pid_t pid;	    /* the offending task, 0 for cgroup-wide actions */
	uint64_t bytes;	    /* shatter/collapse budget, or zone target size */
	bool dry_run;	    /* the matching policy's dry_run, or an operator's --dry-run */
	bool asked;	    /* an operator's request (taoctl act), not a policy's */
	char policy[64];    /* name of the policy that asked */
	char evidence[320]; /* numbers over the window that led here */
	/* what broke the tenant's THPs most (split_cause_name()), "" if untold */
	char top_cause[24];
	/* POLICY_SIZES_* of the policy that asked (0: PMD THPs): a shatter with
	 * POLICY_SIZES_MTHP splits the folios below the PMD size too. */
	unsigned sizes;
};

/*
 * What a shatter did to THPs, where the kernel counts it: on a boot-zone
 * TAO kernel the machine-wide vmstat deltas around the split request
 * (thp_shatter_page, _failed, _discarded; thp_split_page for folios
 * outside the zones). @counted false: not measured (stock, memcg file).
 */
struct shatter_counts {
	bool counted;
	uint64_t shattered, failed, discarded, split;
	/* The split path's own tally, on every kernel (@split_counted): bytes
	 * and THPs the page tables show split after it, of those THPs the
	 * partly mapped, and pages migrated (vmstat pgmigrate_success around
	 * the action, its compaction included; machine-wide, 0 if untold). */
	bool split_counted;
	uint64_t bytes_split, thps_split, partial_thps, pages_migrated;
};

/* One audit record, as `taoctl actions` shows it. */
struct action_record {
	uint64_t id;
	uint64_t time_ms; /* realtime */
	uint64_t took_ms; /* the gate and the backend, in the loop or (off_loop kinds) a child */
	struct action_request req;
	/* What it moved: the bytes split or collapsed (req.bytes is what was
	 * asked); 0 for a kind that moves none, or an action stopped unheard. */
	uint64_t bytes;
	enum action_result result;
	int err;	  /* errno of a failed write, 0 otherwise */
	char detail[256]; /* what was written where, or why not */
	struct shatter_counts shatter;
	struct action_cost cost; /* what carrying it out cost (cost.measured) */
};

/*
 * What act knows of the NoSplit zone for a given THP demand, so that decide
 * asks for a resize only when it would move at least one memory block.
 */
struct zone_view {
	uint64_t nosplit_bytes; /* online now */
	uint64_t block_bytes;	/* one memory block */
	uint64_t target_bytes;	/* what a resize for the demand aims at */
};

/* Fills @out for @demand; 0, or -errno when the zones cannot be read. */
typedef int (*zone_view_fn)(void *ctx, uint64_t demand, struct zone_view *out);

const char *action_result_name(enum action_result r);

#endif
