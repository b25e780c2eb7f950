/* SPDX-License-Identifier: GPL-2.0 */
/* Human-readable figures and JSON field access for taoctl's tables. */
#ifndef TAOCTL_FORMAT_H
#define TAOCTL_FORMAT_H

#include <stddef.h>
#include <stdint.h>

struct json_object;

const char *fmt_bytes(char *buf, size_t len, uint64_t bytes);
/*
 * In the units taod.conf takes, exact: "30s", "5m", "1500ms", "2h", "7d";
 * the largest unit the value is a whole number of.
 */
const char *fmt_duration(char *buf, size_t len, uint64_t ms);
/* The same for sizes: "64M", "4K", "1G", "4097" (binary multiples). */
const char *fmt_size(char *buf, size_t len, uint64_t bytes);
/*
 * Option values as taod.conf spells them. 0, or -1 after an error naming
 * @opt and @value: a size ("4M", at least 1) or a number from 1 to INT32_MAX.
 */
int opt_size(const char *opt, const char *value, uint64_t *out);
int opt_positive(const char *opt, const char *value, long *out);
/* A cgroup glob some path can match: it starts with '/', '*', '?' or '['. */
int opt_glob(const char *opt, const char *glob);
/* A zone's "SIZE,ORDER" in its syntax (SIZE bytes with K..P, or NN%;
 * ORDER a whole number); 0, or -1 with the option named on stderr. taod
 * checks the values against the kernel's rules. */
int opt_zone(const char *opt, const char *value);
/* "87.5%", or "-" for a JSON null (pct_text with "%"). */
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
