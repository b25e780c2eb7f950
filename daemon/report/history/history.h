/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Persistent history in SQLite: per-cgroup samples every N ticks,
 * machine-wide figures, class changes and actions. Survives restarts and
 * crashes (WAL, one transaction per batch); bounded by age and size.
 *
 * Identity: one `cgroups` row per incarnation (path + cgroup id, with
 * first/last seen). A recreated path gets a new id and so a new row; a
 * restart of taod continues the row of a cgroup still present.
 * Counters: BPF counts restart at zero with taod, so rows store per-batch
 * deltas and a cumulative series continued across restarts.
 */
#ifndef TAOD_HISTORY_H
#define TAOD_HISTORY_H

#include <stdbool.h>
#include <stdint.h>

#include "taod/action.h"
#include "account/cgroup_state.h"
#include "account/machine_stats.h"

#define HISTORY_SCHEMA_VERSION 9

struct history;
struct sqlite3;

/*
 * Opens (creating the directory and schema) for writing. 0 or -errno, @err
 * says why. An existing file that is not a taod database of taod's user is
 * refused before anything of it is changed (-EPERM).
 */
int history_open(struct history **out, const char *path, char *err, size_t err_len);
void history_close(struct history *h);
/* Marks a new daemon run (restart boundary in reports). */
int history_begin_run(struct history *h, uint64_t wall_ms, const char *version);

/* Class of a cgroup as decide sees it; NULL or "" for unknown. */
typedef const char *(*history_class_fn)(void *ctx, const struct cgroup_entry *e);

/* How much of a batch one call writes: at most @max cgroups, and none
 * more once CLOCK_MONOTONIC passes @until_us (0: no time limit) when
 * HISTORY_SLICE_MIN are written. */
struct history_slice {
	size_t max;
	uint64_t until_us;
};
#define HISTORY_SLICE_MIN 256

/*
 * A batch: a sample of every cgroup with a path, all at the batch's time,
 * then the machine figures (@m may be NULL) and a row saying it is
 * complete. Written in slices (@sl), a transaction each, so one call's
 * work is bounded however many cgroups there are (issue 29
 * part 10): the first call opens the batch at @wall_ms, later calls go on
 * from where it stopped (their @wall_ms unused; cgroups made meanwhile
 * with a higher id are in it, others wait for the next batch). @class_of
 * may be NULL. Returns HISTORY_MORE while cgroups are left, 0 when the
 * batch is complete, or a negative errno: the slice is rolled back and
 * the batch abandoned (what earlier slices wrote stays, and is known).
 */
#define HISTORY_MORE 1
int history_record_slice(struct history *h, const struct cgroup_table *t, uint64_t wall_ms,
			 const struct machine_stats *m, history_class_fn class_of, void *ctx,
			 const struct history_slice *sl);
/* The whole batch (or the rest of an open one) in one slice: 0 or a
 * negative errno. */
int history_record(struct history *h, const struct cgroup_table *t, uint64_t wall_ms,
		   const struct machine_stats *m, history_class_fn class_of, void *ctx);
/*
 * The machine's contiguity-pressure state (none, some, full) and the
 * inputs holding it up at @wall_ms: a row per batch (schema 6).
 */
int history_record_pressure(struct history *h, uint64_t wall_ms, const char *state,
			    const char *why);
/* What the last failed write said ("commit: database or disk is full"). */
const char *history_last_error(const struct history *h);
/* Audit record of decide/act, written at once, with its cost rows when
 * measured (schema 7). 0, or -EIO. */
int history_record_action(struct history *h, const struct action_record *a);
/* A benefit follow-up of this run's audited action @b->id: a row of
 * action_benefits. 0, -ENOENT when the action is not in the database,
 * or -EIO. */
int history_record_benefit(struct history *h, const struct action_benefit *b);

/* Drops rows older than @max_age_ms, then oldest rows until the file fits @max_bytes. */
int history_retain(struct history *h, uint64_t now_wall_ms, uint64_t max_age_ms,
		   uint64_t max_bytes);
/* Bytes in use by the database (pages minus free pages). */
int64_t history_size_bytes(struct history *h);

/* schema (history_schema.c), shared by the writer and the reader */
int history_schema_apply(struct sqlite3 *db, char *err, size_t err_len);
int history_schema_check(struct sqlite3 *db, char *err, size_t err_len);
/* Migrates up to version @target only (tests make databases of older versions). */
int history_schema_apply_to(struct sqlite3 *db, int target, char *err, size_t err_len);
/* PRAGMA user_version: 0 for an empty file, -1 when unreadable. */
int history_schema_version(struct sqlite3 *db);
struct sqlite3 *history_db(struct history *h);

#endif
