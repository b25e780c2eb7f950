/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The decide stage: groups cgroups into tenants (tenants.c), judges every
 * tenant once per window of its policy on the contiguity it wasted over the
 * policy's horizon (verdict.c), classes it good / misuser / abuser with
 * hysteresis, counts strikes that walk the policy's action ladder, and
 * hands action requests to act through an action_sink_fn.
 */
#ifndef TAOD_DECIDE_H
#define TAOD_DECIDE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "taod/action.h"
#include "common/id_vec.h"
#include "account/cgroup_state.h"
#include "config/policy.h"
#include "common/pressure_inputs.h"
#include "thp_held.h"

#define DECIDE_HISTORY	 16
#define DECIDE_OFFENDERS 4
/* A misuser is past max_split_ratio; an abuser past this many times it. */
#define DECIDE_ABUSER_SCORE 2.0
/* The THPs held partly mapped now are judged when at least this share of
 * min_allocs: a tenant left with a THP or two cut of the few it holds (a
 * heap's top trimmed at its teardown) is no evidence. */
#define DECIDE_HELD_FLOOR 0.25
/* PMD-mapped THP size: coverage rewards smaller than one are not worth a
 * request, and a shatter asks for one per split in the window. */
#define DECIDE_THP_BYTES (2ULL << 20)

enum cg_class { CLASS_GOOD, CLASS_MISUSER, CLASS_ABUSER, CLASS_MAX };

/* Where decide's requests go; act plugs in here. */
typedef void (*action_sink_fn)(void *ctx, const struct action_request *req);

struct task_row;
/* Per-task counters (as task_rows_collect gives them); returns rows filled. */
typedef size_t (*task_source_fn)(void *ctx, struct task_row *rows, size_t max);
/* Whether process @tgid still lives (a row outlives its task). */
typedef bool (*task_alive_fn)(uint32_t tgid);
/* Whether any task is in cgroup @path or below it (true when unknown). */
typedef bool (*tenant_tasks_fn)(void *ctx, const char *path);

/*
 * A tenant judged at the end of a window, against its policy. The figures
 * in THPs (2 MiB each) decay with the policy's horizon as half-life, so
 * splitting a THP minutes after faulting it weighs as much as at once.
 */
struct verdict {
	uint64_t span_ms, allocs, splits; /* what this window added */
	double split_ratio;		  /* splits / allocs of this window alone */
	double given, held_peak, broken;  /* decayed THPs: allocated, most held, broken */
	/* THPs held at the judgement (issue 36), whatever made them: PMD-mapped
	 * whole (memory.stat anon_thp) and partly mapped (the BPF gauge), and
	 * partly / (whole + partly) when held_judged: the gauge is counted,
	 * the policy judges PMD THPs and at least DECIDE_HELD_FLOOR of
	 * min_allocs are partly mapped; 0 otherwise. */
	double held_whole, held_partly, held_waste;
	bool held_judged;
	bool by_held; /* held_waste is above the waste over its life: it decided */
	/* max(broken / max(given, held_peak, broken), held_waste) */
	double waste;
	double score;	      /* waste / max_split_ratio */
	uint64_t fresh_pages; /* base pages split since the last action */
	unsigned members;     /* cgroups in the tenant */
	double coverage_mean; /* -1: no anon memory in the window */
	double coverage_min, coverage_max;
	uint64_t anon_bytes, thp_bytes; /* newest memory.stat */
	/* Evidence: max(given, held_peak, broken, THPs made by fault or
	 * collapse (decayed), held whole + partly now) >= min_allocs */
	bool judged;
	/* Not judged for too few THPs: what its score says, which counts
	 * toward a streak up but cannot end one; good otherwise. */
	enum cg_class unjudged_level;
	bool empty;	       /* no live task, no anon memory: not judged, its class kept */
	bool below_guarantee;  /* a guarantee is set and coverage is under it */
	uint64_t reward_bytes; /* anon bytes short of the guarantee */
	uint64_t fallbacks;    /* THP faults that fell back in this window */
	bool wanting;	       /* below its guarantee, or its THP faults fell back */
	double psi_some;       /* its memory.pressure some avg10 (v2); -1: none */
	enum cg_class level;   /* what this window alone says; good when not judged */
};

struct judgement {
	uint64_t t_ms;
	enum cg_class level, cls; /* this window's level; class after it */
	double score;
	bool judged;
	unsigned strikes;
};

struct offender {
	uint32_t pid;
	char comm[TAOD_COMM_LEN];
	uint64_t thp_alloc, pmd_split, pmd_split_pages;
	/* enum taod_split_cause of most of its splits, -1 if none was told;
	 * split_cause_name() names it. */
	int top_cause;
	uint64_t top_cause_splits; /* splits with that cause */
};

/* Decide's memory of one cgroup; the verdict fields only for tenant roots. */
struct cg_judge {
	uint64_t id;
	char *path; /* as the cgroup table last named it */
	char policy[POLICY_NAME_MAX];
	/* tenants.c: the tenant this cgroup belongs to (its own id for a
	 * tenant root) and its policy, valid while tenant_gen is current */
	uint64_t tenant_id;
	struct cg_judge *root; /* the tenant root's judge (this one for a root) */
	const struct policy *pol;
	unsigned tenant_gen;
	unsigned members;		 /* tenant roots: cgroups summed this tick */
	struct cg_evidence acc;		 /* tenant roots: the members' evidence now */
	struct cg_evidence seen;	 /* ... and at the last judgement */
	double given, held_peak, broken; /* verdict.c: decayed THPs */
	double made;			 /* ... made by fault or collapse: evidence only */
	uint64_t decayed_ms;		 /* when they were last decayed */
	uint64_t fresh_pages;		 /* split since the last action asked for */
	enum cg_class cls;
	uint64_t class_since_ms;
	unsigned up_streak, down_streak;    /* windows in a row above / below the class */
	enum cg_class up_bound, down_bound; /* least change every window of the streak agrees on */
	unsigned strikes;		    /* abusive windows outside cooldown */
	uint64_t next_judge_ms, cooldown_until_ms;
	uint64_t window_from_ms; /* the sample the next window starts at */
	bool restricted;	 /* a restrict was asked for and not yet granted back */
	bool has_verdict;
	struct verdict last;
	uint64_t wanted_ms; /* the last judgement that found it wanting; 0: none */
	struct judgement hist[DECIDE_HISTORY];
	unsigned hist_len, hist_head;
	struct offender offenders[DECIDE_OFFENDERS];
	unsigned noffenders;
	/* When offenders were last named: what broke the tenant's THPs most,
	 * over all its tasks (enum taod_split_cause, -1: no cause told), the
	 * splits with that cause and all its tasks' splits. */
	int top_cause;
	uint64_t top_cause_splits, task_splits;
	bool acted;
	/* The strike asked for warn only: act_when = need and nobody needed it;
	 * held_kind is what the ladder would have asked for. */
	bool held;
	enum action_kind held_kind;
	/* Warned once for the rung it holds: later held strikes wait silently,
	 * their waste unanswered, for the first window under need. */
	bool held_warned;
	enum action_kind last_action;
	uint64_t last_action_ms;
	/* Shatters asked since taod started: an abuser still judged one after
	 * some is not cured by them (TaodAbuserReturns). */
	uint64_t shatters_asked;
	unsigned seen_gen;
};

/* zone_demand.c: sizing requests for the TAO policy zones. */
struct zone_demand {
	uint64_t next_ms;      /* next look at the demand; 0: at the first pass */
	uint64_t demand_bytes; /* at the last look */
	unsigned guaranteed;   /* cgroups counted in it */
	struct zone_view view; /* the zone then */
	uint64_t requests;     /* resize requests made */
	/* THP bytes all tenants held, sampled once a second: the peak over the
	 * history window, below which taoctl zones never sizes the zones. */
	struct thp_peak held_peak;
	uint64_t held_next_ms;
};

struct decide_state {
	unsigned tenant_gen; /* moves when the tree or the policies change */
	unsigned tree_gen_seen, policy_gen_seen;
	const struct policy_set *policies_seen;
	unsigned judges_tree_gen; /* the tree the judges were last made for */
	bool judges_made;
	/* judge_table.c: the judge of each cgroup table entry, by index (NULL
	 * for entries without a path), rebuilt each pass by a merge of the two
	 * id-sorted tables: no lookup per cgroup per tick */
	struct cg_judge **of_entry;
	size_t of_entry_cap;
	union { /* the typed view of the same sorted vector */
		struct id_vec ids;
		struct {
			struct cg_judge **v; /* sorted by id */
			size_t n, cap;
		};
	};
	unsigned gen;
	uint64_t judgements, requests;
	uint64_t held;	  /* strikes that warned only: nobody needed contiguity */
	unsigned wanting; /* good tenants wanting at the start of the last pass */
	struct zone_demand zones;
};

/*
 * Whether anyone needs contiguity (act_when = need): the machine's
 * contiguity pressure (account/contiguity_pressure.h) and the good
 * tenants that want THPs, and whether a collapse has free blocks to use.
 */
struct decide_need {
	enum pressure_level pressure;
	uint64_t free_pmd_blocks;
	bool free_known;	     /* free_pmd_blocks was read */
	uint64_t wanting_fallbacks;  /* fallbacks in a window that make a tenant wanting */
	uint64_t wanting_psi;	     /* v2 memory.pressure some avg10 (%) that does; 0: off */
	uint64_t reward_free_blocks; /* a collapse needs more free PMD blocks than this */
	uint64_t want_hold_ms;	     /* a want lasts this long after the window that showed it */
	/* When the machine last showed a lack of contiguity (contiguity_pressure.h
	 * short_ms; 0: never): a tenant's fallbacks count only in a window
	 * that saw one, or they were its own limit's (a charge) */
	uint64_t short_ms;
	unsigned wanting; /* decide_tick: good tenants wanting at the last pass */
};

/* Inputs of one decide pass. */
struct decide_io {
	const struct policy_set *policies;
	bool tao_kernel;     /* coverage rewards: GRANT on TAO, COLLAPSE on stock */
	bool no_memcg_zones; /* TAO without memory.thp_zones: no restrict rung, no GRANT */
	action_sink_fn sink;
	void *sink_ctx;
	task_source_fn tasks; /* may be NULL: no offenders named */
	void *tasks_ctx;
	/* NULL: every row's task lives. An action aimed at a task names the
	 * first live offender; none: the whole tenant. */
	task_alive_fn task_alive;
	/* NULL: every tenant has a task. Asked only of a tenant with no anon
	 * memory: with no task either, it shut down (verdict_empty). */
	tenant_tasks_fn tenant_tasks;
	void *tenant_tasks_ctx;
	/* TAO kernels: the NoSplit zone as act sees it; NULL: no zone sizing */
	zone_view_fn zone_view;
	void *zone_view_ctx;
	uint64_t zone_resize_every_ms; /* at most one resize request per this */
	/* NULL: every policy acts as act_when = always, collapses ungated */
	const struct decide_need *need;
	uint64_t held_window_ms; /* the THP held peak's window ([history] retention) */
};

void decide_init(struct decide_state *s);
void decide_free(struct decide_state *s);
/* Judges the cgroups whose window is due at @now_ms; forgets vanished ones. */
void decide_tick(struct decide_state *s, const struct cgroup_table *t, uint64_t now_ms,
		 const struct decide_io *io);
struct cg_judge *decide_find(const struct decide_state *s, uint64_t id);
/* Whether @j is a good tenant that still wants THPs at @now_ms: as last
 * judged, or within @hold_ms of the judgement that found it wanting. */
bool decide_still_wanting(const struct cg_judge *j, uint64_t now_ms, uint64_t hold_ms);
/* Fills s->of_entry for @t; -ENOMEM leaves it unusable (s->of_entry NULL). */
int judges_align(struct decide_state *s, const struct cgroup_table *t);

/* verdict.c: decays @j's evidence to @now_ms, adds what the window brought,
 * and fills @v; window figures (span, coverage) come from @w. */
void verdict_judge(struct cg_judge *j, const struct cg_window *w, const struct cgroup_entry *e,
		   const struct policy *p, uint64_t now_ms, struct verdict *v);
/* The least class that takes strikes under @p. */
enum cg_class verdict_strike_class(const struct policy *p);
void verdict_evidence(const struct verdict *v, const struct policy *p, char *buf, size_t len);
/*
 * @v, judged by verdict_judge, is of a tenant with no live task and no
 * anon memory: nothing it broke lasts (its THPs were freed), so its broken
 * THPs and fresh pages go to 0 and @v is not judged (empty).
 */
void verdict_empty(struct cg_judge *j, struct verdict *v);

/* hysteresis.c: moves the class for one window's level; true when it moved. */
bool hysteresis_step(struct cg_judge *j, enum cg_class level, const struct policy *p,
		     uint64_t now_ms);
/*
 * The class step for verdict @v: hysteresis_step on its level, except that
 * an empty tenant's window moves nothing and resets both streaks, and a
 * window too small to judge whose score is past the class counts toward
 * the streak up without ending it (the next judged window can). True when
 * the class moved.
 */
bool hysteresis_window(struct cg_judge *j, const struct verdict *v, const struct policy *p,
		       uint64_t now_ms);
/*
 * Why @j's class is not what its last window's score alone says, as
 * "score 4.00 above 2 for 1 of 2 windows": true with the text in @buf, or
 * false when the two agree (or @j was never judged).
 */
bool hysteresis_held(const struct cg_judge *j, const struct policy *p, char *buf, size_t len);

/* ladder.c: the rung for a strike count, the highest one started at or below it. */
enum ladder_rung ladder_rung_for(const struct policy *p, unsigned strikes);

/* ladder_step.c: the action one judged window asks for, if any. */
bool ladder_step(struct cg_judge *j, const struct verdict *v, const struct policy *p,
		 bool class_moved, const struct decide_io *io, uint64_t now_ms,
		 enum action_kind *kind);
/* The next action due and the earliest time it can be asked for. */
bool decide_next_action(const struct cg_judge *j, const struct policy *p, bool tao_kernel,
			bool no_memcg_zones, enum action_kind *kind, uint64_t *due_ms);

/*
 * zone_demand.c: THP bytes the guaranteed cgroups of @t need (see the
 * file's comment for the formula); @counted receives how many cgroups.
 */
uint64_t zone_demand_bytes(const struct cgroup_table *t, const struct policy_set *ps,
			   unsigned *counted);
/*
 * zone_demand.c: the THP memory all tenants hold now (thp_held.h): memory.stat is
 * hierarchical, so only cgroups with no counted ancestor count, each with
 * its descendants; a guaranteed cgroup (its top-most guaranteed ancestor
 * speaks for it) adds what its guarantee promises beyond what it holds.
 */
void thp_held_sum(const struct cgroup_table *t, const struct policy_set *ps, struct thp_held *out);
/* Asks for ACTION_RESIZE_ZONES when due and a block's worth off; true if asked. */
bool zone_demand_tick(struct zone_demand *z, const struct cgroup_table *t, uint64_t now_ms,
		      const struct decide_io *io);

/* tenants.c: assigns every cgroup its tenant when the tree or the
 * policies changed, then sums the members' evidence into each root. */
void tenants_update(struct decide_state *s, const struct cgroup_table *t,
		    const struct policy_set *ps);
/* The tenant root @cgroup_id (live or removed: folded) counts to; 0: none. */
uint64_t tenant_of_cgroup(const struct decide_state *s, const struct cgroup_table *t,
			  uint64_t cgroup_id);

/* offenders.c: the tasks @belongs says are the tenant's, most splits first. */
typedef bool (*task_belongs_fn)(void *ctx, uint64_t cgroup_id);
unsigned offenders_pick(const struct task_row *rows, size_t n, task_belongs_fn belongs, void *ctx,
			struct offender *out, unsigned max);
/* The cause of most of the splits of the tasks @belongs says are the
 * tenant's (enum taod_split_cause), -1 if none was told; @top_splits: its
 * splits, @splits: all the tasks' splits. */
int offenders_top_cause(const struct task_row *rows, size_t n, task_belongs_fn belongs, void *ctx,
			uint64_t *top_splits, uint64_t *splits);

const char *cg_class_name(enum cg_class c);

#endif
