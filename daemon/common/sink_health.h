/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The health of one of taod's output sinks (history database, audit log,
 * metrics textfile): whether writes succeed, since when they fail, the
 * last error, and how many records could not be written. A failing sink
 * is shown in `taoctl status` and the metrics, not only in the journal.
 */
#ifndef TAOD_SINK_HEALTH_H
#define TAOD_SINK_HEALTH_H

#include <stdbool.h>
#include <stdint.h>

enum sink_id { SINK_HISTORY, SINK_AUDIT, SINK_TEXTFILE, SINK_MAX };

enum sink_state { SINK_OFF, SINK_OK, SINK_FAILING };

#define SINK_ERROR_MAX 256

struct sink_health {
	enum sink_state state;
	uint64_t failing_since_ms;	 /* wall clock; 0 unless failing */
	uint64_t errors;		 /* failed writes (or opens) since taod started */
	uint64_t records_lost;		 /* records that were not written */
	char last_error[SINK_ERROR_MAX]; /* kept after recovery, for status */
};

/* "history", "audit", "textfile": the metrics' sink label. */
const char *sink_name(enum sink_id id);
/* "ok", "failing", "off". */
const char *sink_state_name(enum sink_state s);

/* Configured or not: off clears the failing state, counts are kept. */
void sink_set_on(struct sink_health *h, bool on);
/*
 * A write failed with @why and @lost records are gone. True when the
 * caller should log it: the sink was ok, or the error text changed (once
 * per new error, not once per record).
 */
bool sink_failed(struct sink_health *h, const char *why, uint64_t lost);
/* A write succeeded. True when the sink was failing (log the recovery). */
bool sink_succeeded(struct sink_health *h);

#endif
