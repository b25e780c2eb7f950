/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Policies ([policy NAME] sections of taod.conf): how a group of cgroups,
 * chosen by path globs, is judged and what is done about it, as the
 * configuration reads them (daemon/config/). See the "Policies" section of
 * docs/policies.md for the syntax; policy_match.h says which policy applies.
 */
#ifndef TAOD_POLICY_H
#define TAOD_POLICY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/action_kinds.h"

#define TAOD_MAX_POLICIES 64
#define POLICY_NAME_MAX	  64
#define POLICY_MAX_GLOBS  8
#define POLICY_GLOB_MAX	  256
#define POLICY_FILE_MAX	  256
#define POLICY_DEFAULT	  "default"

/*
 * The rungs of the action ladder, in the order they must appear: observe
 * (no action), then one per action kind, rung r asking for kind r - 1
 * (action_kinds.h). Only the kinds whose row says rung may stand on a
 * ladder (warn, restrict, shatter): the others' slots stay 0.
 */
enum ladder_rung {
	RUNG_OBSERVE,
#define X(kind, ...) RUNG_##kind,
	TAOD_ACTION_KINDS(X)
#undef X
	    RUNG_MAX,
};

/* Folio sizes a policy judges (key `sizes`): PMD THPs, the multi-size THPs
 * below them (16 KiB up; each partial unmap weighed by the folio size it
 * breaks), or both. */
#define POLICY_SIZES_PMD  1u
#define POLICY_SIZES_MTHP 2u

/* Keys of a policy section; bit (1 << key) in policy.set when given. */
enum policy_key {
	PK_MATCH,
	PK_COVERAGE_GUARANTEE,
	PK_MAX_SPLIT_RATIO,
	PK_MIN_ALLOCS,
	PK_WINDOW,
	PK_LADDER,
	PK_COOLDOWN,
	PK_DRY_RUN,
	PK_ESCALATE_AFTER,
	PK_RELAX_AFTER,
	PK_HORIZON,
	PK_ACT_ON,
	PK_SIZES,
	PK_ACT_WHEN,
	PK_MAX,
};

struct policy {
	char name[POLICY_NAME_MAX];
	char globs[POLICY_MAX_GLOBS][POLICY_GLOB_MAX];
	unsigned nglobs;
	double coverage_guarantee;  /* percent of anon backed by THPs; 0: none */
	double max_split_ratio;	    /* THP bytes broken per THP byte held or given, tolerated */
	uint64_t min_allocs;	    /* less THP evidence over the horizon: not judged */
	uint64_t window_ms;	    /* one judgement per window */
	uint64_t horizon_ms;	    /* half-life of the evidence judged (verdict.c) */
	bool act_on_misuser;	    /* misusers take strikes too, not only abusers */
	bool act_always;	    /* act_when = always: climb without pressure or want */
	unsigned sizes;		    /* POLICY_SIZES_*: the folio sizes judged */
	unsigned ladder[RUNG_MAX];  /* strike at which each rung starts; 0: not used */
	uint64_t cooldown_ms;	    /* no new action this long after one */
	bool dry_run;		    /* decide and log, ask act to touch nothing (built-in: yes) */
	unsigned escalate_after;    /* K: windows in a row worse than the class to move up */
	unsigned relax_after;	    /* L: windows in a row better than the class to move down */
	unsigned set;		    /* (1 << enum policy_key) of the keys given */
	char file[POLICY_FILE_MAX]; /* where the section first appeared */
	int line;
};

/* Policies in definition order; [0] is always the default policy. */
struct policy_set {
	struct policy v[TAOD_MAX_POLICIES];
	unsigned n;
	unsigned gen; /* differs between two loads: what was derived from a set is stale */
};

/* Built-in values of the default policy. */
void policy_builtin_default(struct policy *p);
/* "observe", a rung kind's word, or "?" for a kind that is no rung. */
const char *ladder_rung_name(enum ladder_rung r);
/* The action rung @r asks for; @r must not be RUNG_OBSERVE. */
enum action_kind ladder_rung_kind(enum ladder_rung r);
/* "observe, warn, restrict, shatter": the rungs in their order. */
void ladder_rung_names(char *buf, size_t len);
/* The taod.conf name of a policy key; NULL for PK_MAX. */
const char *policy_key_name(enum policy_key k);
/* "warn:1 restrict:3 shatter:5". */
void ladder_format(const struct policy *p, char *buf, size_t len);
/* "pmd", "mthp" or "all" for POLICY_SIZES_* bits. */
const char *policy_sizes_name(unsigned sizes);
/* The policy named @name, or NULL. */
const struct policy *policy_find(const struct policy_set *set, const char *name);

#endif
