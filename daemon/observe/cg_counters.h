/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The per-cgroup counters of struct taod_cg_counters as a table, made from
 * the one list in taod/thp_observe.h (TAOD_CG_COUNTERS), for the code that walks
 * them: the protocol's rows, the metric families, the history's columns.
 */
#ifndef TAOD_CG_COUNTERS_H
#define TAOD_CG_COUNTERS_H

#include <stddef.h>
#include <stdint.h>

#include <linux/types.h>

#include "taod/thp_observe.h"

struct cg_counter {
	const char *field;  /* member of struct taod_cg_counters */
	const char *json;   /* protocol name; history columns `json`, `d_json` */
	int history;	    /* schema version that added its columns; 0: none */
	const char *metric; /* Prometheus counter family; "" for none */
	const char *help;
	size_t offset; /* of the member */
};

/*
 * The table row of member @f of struct @type from a row of a counter list
 * (TAOD_CG_COUNTERS' X arguments after @type). A macro so that a test can
 * build a table from a list of its own.
 */
#define CG_COUNTER_ROW(type, f, j, h, m, hl)                                                       \
	{.field = #f,                                                                              \
	 .json = j,                                                                                \
	 .history = h,                                                                             \
	 .metric = m,                                                                              \
	 .help = hl,                                                                               \
	 .offset = offsetof(type, f)},

/* Each counter's index in cg_counters[] (CG_IDX_pmd_split, ...), and their number. */
#define TAOD_CG_INDEX_(f, ...) CG_IDX_##f,
enum cg_counter_index { TAOD_CG_COUNTERS(TAOD_CG_INDEX_) CG_NCOUNTERS };
#undef TAOD_CG_INDEX_

/* The list's rows, in its order (the protocol's and the metrics'). */
extern const struct cg_counter cg_counters[CG_NCOUNTERS];

/* The value of counter @d in @c. */
uint64_t cg_counter_value(const struct taod_cg_counters *c, const struct cg_counter *d);

/* @s = the sum of the @n per-CPU copies @v, every counter and folio order. */
void cg_counters_sum(const struct taod_cg_counters *v, int n, struct taod_cg_counters *s);
/* @to += @from, every counter and folio order. */
void cg_counters_add(struct taod_cg_counters *to, const struct taod_cg_counters *from);

#endif
