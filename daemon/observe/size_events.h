/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The per-size events of struct taod_cg_sizes and struct taod_task_sizes
 * as a table, from the daemon's list below (SIZE_EVENTS: names, history
 * version and words, a row per field of thp_observe.h's TAOD_SIZE_EVENTS,
 * which holds the layout only), for the code that walks them: sums and
 * folds, the protocol's `sizes`, the metric's `event` label, the
 * history's size_samples columns and the report. The events lead both
 * structs, at the same offsets: a function below that takes
 * `const void *sizes` takes either.
 */
#ifndef TAOD_SIZE_EVENTS_H
#define TAOD_SIZE_EVENTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <linux/types.h>

#include "taod/thp_observe.h"

/*
 * How taod names and shows each per-size event, a row per field of
 * TAOD_SIZE_EVENTS in its order (size_events.c checks both at build time):
 *   X(field, json, history, made, word, title, phrase, column)
 *   field    member of both structs, a count per folio order
 *   json     its name in the protocol (docs/protocol.md, in this order),
 *            the metric label `event`, the history column d_json, the
 *            report's JSON and CSV (`--sizes`) column
 *   history  the schema version whose migration adds d_json (3: in the
 *            table size_samples as version 3 made it)
 *   made     1: folios made (faulted, collapsed), the denominator of the
 *            share broken and the tenant's given mTHP bytes; 0: broken
 *   word     the report's text ("32 faulted"); title: its HTML column;
 *   phrase   its words in the lists of the metric's HELP and the report's
 *            heading; column: `taoctl cgroups --sizes`' heading
 */
#define SIZE_EVENTS(X)                                                                             \
	X(fault_alloc, "fault_alloc", 3, 1, "faulted", "faulted", "faulted", "FAULTS")             \
	X(partial, "partial_unmap", 3, 0, "partial", "partially mapped", "left partially mapped",  \
	  "PARTIAL")                                                                               \
	X(split, "split", 3, 0, "split", "split", "split", "SPLITS")                               \
	X(collapse, "collapse", 5, 1, "collapsed", "collapsed", "collapsed by khugepaged",         \
	  "COLLAPSES")

struct size_event {
	const char *field;  /* member of both structs */
	const char *json;   /* protocol name, metric label, history column d_json */
	int history;	    /* schema version that added d_json */
	bool made;	    /* folios made (faulted, collapsed); else broken */
	const char *word;   /* the report's text: "32 faulted" */
	const char *title;  /* the report's HTML column */
	const char *phrase; /* in the lists of the metric's HELP and the report's heading */
	const char *column; /* taoctl cgroups --sizes' heading */
	size_t offset;	    /* of the member, in either struct */
};

/* The table row of member @f from a row of SIZE_EVENTS. */
#define SIZE_EVENT_ROW(f, j, h, m, w, t, p, c)                                                     \
	{.field = #f,                                                                              \
	 .json = j,                                                                                \
	 .history = h,                                                                             \
	 .made = m,                                                                                \
	 .word = w,                                                                                \
	 .title = t,                                                                               \
	 .phrase = p,                                                                              \
	 .column = c,                                                                              \
	 .offset = offsetof(struct taod_task_sizes, f)},

/* Each event's index in size_events[] (SIZE_IDX_split, ...), and their number. */
#define TAOD_SIZE_INDEX_(f) SIZE_IDX_##f,
enum size_event_index { TAOD_SIZE_EVENTS(TAOD_SIZE_INDEX_) SIZE_NEVENTS };
#undef TAOD_SIZE_INDEX_

/* The list's rows, in its order (the protocol's, the metrics' and the report's). */
extern const struct size_event size_events[SIZE_NEVENTS];

/* The count of event @d at @order in @sizes (0 for an order out of range). */
uint64_t size_count(const void *sizes, const struct size_event *d, int order);

/* Whether any event of @order was counted in @sizes. */
bool size_any(const void *sizes, int order);

/* The folios of @order made (d->made) or broken (!d->made) in @sizes. */
uint64_t size_made(const void *sizes, int order);
uint64_t size_broken(const void *sizes, int order);

/* @to += @add, every event of every order (nr_anon, the cgroup's own, untouched). */
void size_events_add(void *to, const void *add);

/* @to's events = @from's, every order (nr_anon untouched). */
void size_events_copy(void *to, const void *from);

/*
 * @delta = what moved from @seen to @now, every event of every order (a
 * count below @seen: BPF's entry was made anew, so all of @now). Returns
 * whether anything moved.
 */
bool size_events_moved(const void *now, const void *seen, void *delta);

/*
 * Writes the rows' @what (offsetof a `const char *` member of struct
 * size_event: word, phrase, ...) to @f in the list's order, each through
 * printf format @fmt, @sep between.
 */
void size_events_list(FILE *f, size_t what, const char *fmt, const char *sep);

#endif
