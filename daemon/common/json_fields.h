/* SPDX-License-Identifier: GPL-2.0 */
/*
 * One-line adders for the JSON objects taod builds (json-c); defined in
 * json_text.c.
 */
#ifndef TAOD_JSON_FIELDS_H
#define TAOD_JSON_FIELDS_H

#include <json-c/json.h>
#include <stdint.h>

/*
 * @o serialized with json-c @flags, as a malloc'd string of valid UTF-8
 * (json-c passes ill-formed bytes of cgroup names through). NULL on ENOMEM.
 */
char *json_to_text(struct json_object *o, int flags);

/*
 * A JSON number for @v in the fewest digits that read back as @v (9.9,
 * not json-c's 9.9000000000000004; 5/12 keeps its 16), a ".0" kept on
 * whole numbers; null for NaN or infinity, which JSON cannot hold.
 */
struct json_object *json_new_double(double v);

/* Adds @v (taking its reference) under @k: the one way taod fills objects. */
static inline void json_add(struct json_object *o, const char *k, struct json_object *v)
{
	json_object_object_add(o, k, v);
}

static inline void json_add_bool(struct json_object *o, const char *k, int v)
{
	json_object_object_add(o, k, json_object_new_boolean(v));
}

static inline void json_add_double(struct json_object *o, const char *k, double v)
{
	json_object_object_add(o, k, json_new_double(v));
}

static inline void json_add_u64(struct json_object *o, const char *k, uint64_t v)
{
	json_object_object_add(o, k, json_object_new_uint64(v));
}

static inline void json_add_i64(struct json_object *o, const char *k, int64_t v)
{
	json_object_object_add(o, k, json_object_new_int64(v));
}

static inline void json_add_str(struct json_object *o, const char *k, const char *v)
{
	json_object_object_add(o, k, json_object_new_string(v));
}

/* null for a missing or empty string */
static inline void json_add_str_or_null(struct json_object *o, const char *k, const char *v)
{
	json_object_object_add(o, k, v && *v ? json_object_new_string(v) : NULL);
}

/* null for a negative value, which means "not known" */
static inline void json_add_known(struct json_object *o, const char *k, double v)
{
	json_object_object_add(o, k, v < 0 ? NULL : json_new_double(v));
}

#endif
