/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Every action kind, described once. The actor's dispatch (act_backend.h's
 * op[]), decide's ladder (policy.h's rungs), taod.conf's ladder words,
 * taoctl's words and the control protocol's `action` all come from this
 * table; tests/integration/test_docs.py holds the completion's and the
 * docs' lists to it. A new kind is one row here plus the backend functions
 * that carry it out (op[ACTION_NEW] in each backend that can; a backend
 * without one reports it unsupported).
 *
 * A row: KIND, its word, whether it is a rung of a policy's action ladder
 * (rungs climb in the rows' order), whether it spends the byte budget
 * (shatter_bytes_per_minute: the backend gets a budget, never 0), whether
 * it is machine-wide (no cgroup: not checked against the allowlist),
 * whether decide aims it at the tenant's top offending task (its pid in
 * the request), whether it reads the tenant's memory (its /proc maps and
 * page tables, which the tenant's mmap lock guards: carried out off the
 * loop, common/offload.h), and what it does, as taoctl's help says it.
 */
#ifndef TAOD_ACTION_KINDS_H
#define TAOD_ACTION_KINDS_H

#include <stdbool.h>
#include <stddef.h>

#define TAOD_ACTION_KINDS(X)                                                                       \
	/* KIND, word, rung, bytes, machine-wide, task, off loop, what */                          \
	X(WARN, "warn", true, false, false, true, false, "log and audit only")                     \
	X(RESTRICT, "restrict", true, false, false, false, false,                                  \
	  "take THP room away: TAO policy zones, or stock memory.high/soft limit")                 \
	X(GRANT, "grant", false, false, false, false, false,                                       \
	  "give back what restrict took, or reward")                                               \
	X(SHATTER, "shatter", true, true, false, true, true,                                       \
	  "split an offender's THPs (partly mapped first)")                                        \
	X(COLLAPSE, "collapse", false, true, false, false, true,                                   \
	  "MADV_COLLAPSE a guaranteed cgroup's memory")                                            \
	X(RESIZE_ZONES, "resize-zones", false, false, true, false, false,                          \
	  "move memory blocks between the TAO policy zones")

enum action_kind {
#define X(kind, ...) ACTION_##kind,
	TAOD_ACTION_KINDS(X)
#undef X
	    ACTION_KIND_MAX,
};

struct action_kind_row {
	const char *name;
	bool rung;	   /* may stand on a policy's ladder */
	bool bytes;	   /* spends the byte budget */
	bool machine_wide; /* acts on no cgroup */
	bool task;	   /* aimed at the top offending task */
	bool off_loop;	   /* reads the tenant's memory: carried out in an offload child */
	const char *what;
};

/* The row of @k; NULL when @k is out of range. */
const struct action_kind_row *action_kind_row(enum action_kind k);
/* The word of @k, "?" when out of range. */
const char *action_kind_name(enum action_kind k);
/* "warn, restrict, ...": every kind's word, in the table's order. */
void action_kind_words(char *buf, size_t len);
/* The kind whose word is @name (exactly), or -1. */
int action_kind_by_name(const char *name);

#endif
