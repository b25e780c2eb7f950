/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The audit log of the act stage: every request, done or suppressed, goes
 * to the journal, to an in-memory ring that `taoctl actions` reads and to
 * an append-only JSON-lines file.
 */
#ifndef TAOD_AUDIT_H
#define TAOD_AUDIT_H

#include <stddef.h>
#include <stdint.h>

#include "taod/action.h"

struct audit_log;
struct cost_totals;
struct json_object;
struct sink_health;

/* @path may be NULL or "" (no file). The file is opened on first record. */
struct audit_log *audit_open(const char *path, size_t ring_cap);
void audit_close(struct audit_log *a);
/*
 * Sets the file (NULL or "": none) and closes the open one, so the next
 * record reopens the path: reload after a rotation (mv) writes to a new
 * file. A file unlinked under taod is reopened at the next record too.
 */
void audit_set_path(struct audit_log *a, const char *path);
/* Stamps @rec with an id and the time, then logs and stores it. */
void audit_record(struct audit_log *a, struct action_record *rec);
size_t audit_count(const struct audit_log *a);
/* The @i-th newest record (0 = newest), or NULL. */
const struct action_record *audit_get(const struct audit_log *a, size_t i);
/* The file's health: failed opens and writes, records lost (for status, metrics). */
const struct sink_health *audit_health(const struct audit_log *a);
/* Costs and final benefits audited since taod started, per kind (metrics). */
const struct cost_totals *audit_cost_totals(const struct audit_log *a);
/* Records audited since taod started with @kind and @result (metrics). */
uint64_t audit_action_count(const struct audit_log *a, enum action_kind kind,
			    enum action_result result);

struct json_object *action_record_json(const struct action_record *r);
/*
 * A follow-up of audited action @b->id (kind, cgroup, policy as audited):
 * a JSON line {"id", "time_ms", "record": "benefit", "action", "cgroup",
 * "policy", "benefit": {...}} and a journal notice; not in the ring.
 */
void audit_benefit(struct audit_log *a, enum action_kind kind, const char *cgroup,
		   const char *policy, const struct action_benefit *b);

#endif
