/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Control protocol encoding, shared by taod and taoctl. A request is one
 * JSON object on one line: {"command": "cgroups", "args": {...}}. A reply
 * is one JSON object: {"ok": true, ...} or {"ok": false, "error": "..."}.
 * Contract: control <-> taoctl (the wire format).
 */
#ifndef TAOD_PROTOCOL_H
#define TAOD_PROTOCOL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <linux/types.h>

struct json_object;
struct cgroup_entry;
struct taod_task_counters;

#define PROTOCOL_VERSION   1
#define PROTOCOL_MAX_DEPTH 16

/*
 * How long a client waits for a reply, in seconds: `act` waits for its
 * record while a shatter or collapse works off the loop (its 10 s, the
 * kill's grace, and a few waiting before it), `explain` for its child.
 */
#define PROTOCOL_WAIT_S		10
#define PROTOCOL_ACT_WAIT_S	75
#define PROTOCOL_EXPLAIN_WAIT_S 15
/* The wait for @command's reply (PROTOCOL_*WAIT_S). */
unsigned protocol_wait_s(const char *command);

/* Parses one request line; on error fills @err with what is wrong. */
int protocol_parse_request(const char *text, struct json_object **out, char *err, size_t err_len);
const char *protocol_command(struct json_object *req);
/* Member of "args", or NULL. */
struct json_object *protocol_arg(struct json_object *req, const char *name);
/* Typed argument readers: 0, -ENOENT when absent, -EINVAL when mistyped. */
int protocol_arg_string(struct json_object *req, const char *name, const char **out);
int protocol_arg_int(struct json_object *req, const char *name, int64_t min, int64_t max,
		     int64_t *out);

struct json_object *protocol_ok(void);
struct json_object *protocol_error(const char *msg);
struct json_object *protocol_errorf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* One cgroup row as shown by `taoctl cgroups`. */
struct json_object *protocol_cgroup_row(const struct cgroup_entry *e);
/* Adds to @row the folios @e has partly mapped now (@counted: BPF counts
 * them here; else nulls): "partly_mapped_thps" (PMD size),
 * "partly_mapped_bytes" (every size) and "partly_mapped_by_size_kb". */
void protocol_add_partly_mapped(struct json_object *row, const struct cgroup_entry *e,
				bool counted);
/* A number, or null when @v is negative (meaning "not known"). */
struct json_object *protocol_pct_or_null(double v);
/* A size mix: [{size_kb, then each per-size event of TAOD_SIZE_EVENTS by
 * its name}] for each order from 2 with any event counted in @sizes (a
 * struct taod_task_sizes or taod_cg_sizes: the events lead both). */
struct json_object *protocol_size_mix(const void *sizes);

/* A reply as its text on one line ("...\n", valid UTF-8); puts @reply. Caller
 * frees; NULL on ENOMEM. */
char *protocol_reply_line(struct json_object *reply);
/* Builds a request text ("...\n") for taoctl, the bytes of its strings as
 * given (a glob may name a cgroup that is not valid UTF-8). Caller frees. */
char *protocol_build_request(const char *command, struct json_object *args);

#endif
