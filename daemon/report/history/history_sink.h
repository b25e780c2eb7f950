/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The daemon's history database as an output sink: opened at the
 * configured path, watched for being deleted or replaced under taod (the
 * file is then no longer at the path, and SQLite refuses or loses every
 * write), reopened or recreated there, and its health kept for status and
 * metrics.
 */
#ifndef TAOD_HISTORY_SINK_H
#define TAOD_HISTORY_SINK_H

#include <limits.h>
#include <stdint.h>
#include <sys/types.h>

#include "history.h"
#include "common/sink_health.h"

struct history_sink {
	struct history *h; /* NULL: not open (off, or failing) */
	char path[PATH_MAX];
	uint64_t start_wall_ms; /* the run recorded in a (re)opened database */
	dev_t dev;		/* the file opened, to notice another at the path */
	ino_t ino;
	struct sink_health health;
};

/* "" @path: off. Logs what it did; a database it cannot use is retried by _get. */
void history_sink_open(struct history_sink *s, const char *path, uint64_t start_wall_ms);
/*
 * The open database, (re)opened first when it is not open or the path no
 * longer holds the file taod opened. NULL when off or unusable (the
 * health says why; logged once per new error) and @lost records are then
 * counted as lost.
 */
struct history *history_sink_get(struct history_sink *s, uint64_t lost);
/* After writing @lost records: @r 0 (written) or -errno; @what names them in the log. */
void history_sink_wrote(struct history_sink *s, int r, uint64_t lost, const char *what);
void history_sink_close(struct history_sink *s);

#endif
