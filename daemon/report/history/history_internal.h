/* SPDX-License-Identifier: GPL-2.0 */
/* What the history writer's files share. */
#ifndef TAOD_HISTORY_INTERNAL_H
#define TAOD_HISTORY_INTERNAL_H

#include <sqlite3.h>
#include <stdint.h>

#include "history.h"
#include "observe/cg_counters.h"

enum history_stmt {
	HS_FIND_CG,
	HS_LAST_SAMPLE,
	HS_INSERT_CG,
	HS_UPDATE_CG,
	HS_INSERT_SAMPLE,
	HS_INSERT_CHANGE,
	HS_INSERT_ZONE,
	HS_INSERT_MTHP,
	HS_INSERT_TAO,
	HS_INSERT_ACTION,
	HS_INSERT_RUN,
	HS_INSERT_SIZE,
	HS_INSERT_PRESSURE,
	HS_INSERT_COST,
	HS_INSERT_BENEFIT,
	HS_INSERT_BATCH,
	HS_MAX,
};

#define HISTORY_CLASS_MAX 32
/* Every mTHP and TAO value is written at a run's first batch and then this often. */
#define MACHINE_KEYFRAME_BATCHES 360

/* What the writer remembers of a cgroup between batches (sorted by id). */
struct hist_cg {
	uint64_t id;
	uint64_t entry_first_seen_ms; /* tells a new incarnation of an id */
	char *path;
	int64_t cg; /* row in `cgroups` */
	/* thp_alloc (fault + collapse) and the list's counters kept in history
	 * (cg_counters' order; the others stay 0): the BPF counts at the last
	 * batch, and the stored cumulative series. */
	uint64_t raw_alloc, raw[CG_NCOUNTERS];
	uint64_t sum_alloc, sum[CG_NCOUNTERS];
	uint64_t last_t_ms;
	char class[HISTORY_CLASS_MAX];
	struct taod_cg_sizes raw_sizes; /* per-size BPF counters at the last batch */
};

struct history {
	sqlite3 *db;
	sqlite3_stmt *st[HS_MAX];
	int64_t run;
	struct hist_cg *cgs;
	size_t n;
	/* The batch being written in slices (history_record_slice): its time,
	 * the last cgroup id a committed slice reached (0: none yet), and the
	 * memory it builds, which takes the place of cgs when it completes. */
	bool batch_open;
	uint64_t batch_ms, batch_after;
	struct hist_cg *next;
	size_t nnext, next_cap;
	/* mTHP values as the database has them, to write only changes. */
	struct mthp_stat *mthp_last;
	size_t nmthp_last;
	/* The TAO vmstat counters as the database has them (bit per enum tao_vmstat). */
	unsigned tao_last_present;
	uint64_t tao_last[TVM_MAX];
	uint64_t machine_batches;
	char last_error[256]; /* SQLite's message of the last failed write */
};

sqlite3_stmt *hst(struct history *h, enum history_stmt s);
int hst_done(struct history *h, sqlite3_stmt *st);
/*
 * Keeps SQLite's message of a failed write as "@what: message" for the
 * sink's health, logged at debug level: the sink warns once per new error,
 * not every batch. Returns -EIO.
 */
int history_failed(struct history *h, const char *what);
void bind_text_or_null(sqlite3_stmt *st, int i, const char *s);
/* A batch's machine figures: zones, mTHP and TAO counters (history_machine.c). */
int history_record_machine(struct history *h, const struct machine_stats *m, uint64_t wall_ms);
/* After a commit: the database now holds @m's values. */
void history_machine_committed(struct history *h, const struct machine_stats *m);

#endif
