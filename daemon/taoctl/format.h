/* SPDX-License-Identifier: GPL-2.0 */
/* Human-readable figures and JSON field access for taoctl's tables. */
#ifndef TAOCTL_FORMAT_H
#define TAOCTL_FORMAT_H

#include <stddef.h>
#include <stdint.h>

struct json_object;

const char *fmt_bytes(char *buf, size_t len, uint64_t bytes);
/* "87.5%", or "-" for a JSON null. */
const char *fmt_pct(char *buf, size_t len, struct json_object *v);
uint64_t jget_u64(struct json_object *o, const char *key);
double jget_double(struct json_object *o, const char *key);
const char *jget_str(struct json_object *o, const char *key);
/*
 * jget_str for a table: control characters and ill-formed bytes as \xNN,
 * so a cgroup's name cannot drive the terminal. Valid for the next 15 calls.
 */
const char *jget_text(struct json_object *o, const char *key);
struct json_object *jget(struct json_object *o, const char *key);
void print_json(struct json_object *o);
/* Width of a table column: the longest @key text in @rows, at least @min. */
int column_width(struct json_object *rows, const char *key, int min);

#endif
