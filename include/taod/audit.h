/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The audit log of the act stage: every request, done or suppressed, goes
 * to the journal, to an in-memory ring that `taoctl actions` reads and to
 * an append-only JSON-lines file.
 */
#ifndef TAOD_AUDIT_H
#define TAOD_AUDIT_H

#include <stddef.h>

#include "taod/action.h"

struct audit_log;
struct json_object;

/* @path may be NULL or "" (no file). The file is opened on first record. */
struct audit_log *audit_open(const char *path, size_t ring_cap);
void audit_close(struct audit_log *a);
void audit_set_path(struct audit_log *a, const char *path);
/* Stamps @rec with an id and the time, then logs and stores it. */
void audit_record(struct audit_log *a, struct action_record *rec);
size_t audit_count(const struct audit_log *a);
/* The @i-th newest record (0 = newest), or NULL. */
const struct action_record *audit_get(const struct audit_log *a, size_t i);
/* Write errors of the file, for status. */
unsigned long audit_file_errors(const struct audit_log *a);

struct json_object *action_record_json(const struct action_record *r);

#endif
