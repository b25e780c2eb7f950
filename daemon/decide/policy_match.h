/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Which policy applies to a cgroup (daemon/decide/policy_match.c): the
 * most specific matching glob wins. See "Matching" in docs/policies.md.
 */
#ifndef TAOD_POLICY_MATCH_H
#define TAOD_POLICY_MATCH_H

#include "config/policy.h"

/* Why a glob is more or less specific than another (see docs/policies.md). */
struct glob_specificity {
	unsigned literals;  /* characters that are not wildcards */
	unsigned wildcards; /* '*', '?' and [...] classes */
};
void glob_specificity(const char *glob, struct glob_specificity *out);

/* One policy whose glob matched a path, for `taoctl policy`. */
struct policy_candidate {
	const struct policy *policy;
	const char *glob; /* its most specific glob that matched */
	struct glob_specificity spec;
};

struct policy_match {
	const struct policy *winner;
	const char *glob; /* NULL when the default policy applies */
	struct policy_candidate cand[TAOD_MAX_POLICIES];
	unsigned ncand;
};

/*
 * The policy that applies to @path: the most specific matching glob wins;
 * equal specificity goes to the policy defined later; no match: default.
 * @why (may be NULL) receives every candidate.
 */
const struct policy *policy_lookup(const struct policy_set *set, const char *path,
				   struct policy_match *why);

#endif
