// SPDX-License-Identifier: GPL-2.0
#include "common/json_fields.h"
#include "taod/protocol.h"

#include <assert.h>
#include <errno.h>
#include <inttypes.h>
#include <json-c/json.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "account/cgroup_state.h"
#include "common/workload_name.h"
#include "account/size_held.h"
#include "observe/cg_counters.h"
#include "observe/size_events.h"

/*
 * The first string in @o holding a NUL byte (JSON's \u0000): its field
 * named in @field ("args.cgroup", "args.x[2]"), true. C code reads such a
 * string up to the NUL and would act on that prefix, so none is accepted.
 */
static bool find_nul_string(struct json_object *o, char *field, size_t len)
{
	size_t at = strlen(field);

	if (json_object_is_type(o, json_type_string))
		return (size_t)json_object_get_string_len(o) != strlen(json_object_get_string(o));
	if (json_object_is_type(o, json_type_array)) {
		for (size_t i = 0; i < json_object_array_length(o); i++) {
			snprintf(field + at, len - at, "[%zu]", i);
			if (find_nul_string(json_object_array_get_idx(o, i), field, len))
				return true;
		}
	} else if (json_object_is_type(o, json_type_object)) {
		json_object_object_foreach(o, key, v)
		{
			snprintf(field + at, len - at, "%s%s", at ? "." : "", key);
			if (find_nul_string(v, field, len))
				return true;
		}
	}
	field[at] = '\0';
	return false;
}

int protocol_parse_request(const char *text, struct json_object **out, char *err, size_t err_len)
{
	char field[128] = "";
	struct json_tokener *tok = json_tokener_new_ex(PROTOCOL_MAX_DEPTH);
	const char *eol = strchr(text, '\n');
	size_t len = eol ? (size_t)(eol - text) : strlen(text);
	struct json_object *req, *cmd, *args;

	*out = NULL;
	if (!tok) {
		snprintf(err, err_len, "out of memory");
		return -ENOMEM;
	}
	req = json_tokener_parse_ex(tok, text, (int)len);
	if (!req || json_tokener_get_error(tok) != json_tokener_success) {
		snprintf(err, err_len, "malformed JSON: %s",
			 len ? json_tokener_error_desc(json_tokener_get_error(tok))
			     : "empty request");
		json_object_put(req);
		json_tokener_free(tok);
		return -EINVAL;
	}
	json_tokener_free(tok);
	if (find_nul_string(req, field, sizeof(field))) {
		snprintf(err, err_len, "%s: a string holding a NUL byte (\\u0000) is refused",
			 field[0] ? field : "the request");
		json_object_put(req);
		return -EINVAL;
	}
	if (!json_object_is_type(req, json_type_object) ||
	    !json_object_object_get_ex(req, "command", &cmd) ||
	    !json_object_is_type(cmd, json_type_string)) {
		snprintf(err, err_len, "request must be an object with a string \"command\"");
		json_object_put(req);
		return -EINVAL;
	}
	if (json_object_object_get_ex(req, "args", &args) &&
	    !json_object_is_type(args, json_type_object)) {
		snprintf(err, err_len, "\"args\" must be an object");
		json_object_put(req);
		return -EINVAL;
	}
	*out = req;
	return 0;
}

const char *protocol_command(struct json_object *req)
{
	struct json_object *cmd;

	return json_object_object_get_ex(req, "command", &cmd) ? json_object_get_string(cmd) : "";
}

struct json_object *protocol_arg(struct json_object *req, const char *name)
{
	assert(req);
	assert(name);

	struct json_object *args, *v;

	if (!json_object_object_get_ex(req, "args", &args) ||
	    !json_object_object_get_ex(args, name, &v))
		return NULL;
	return v;
}

int protocol_arg_string(struct json_object *req, const char *name, const char **out)
{
	assert(out);

	struct json_object *v = protocol_arg(req, name);

	if (!v)
		return -ENOENT;
	if (!json_object_is_type(v, json_type_string))
		return -EINVAL;
	*out = json_object_get_string(v);
	return 0;
}

int protocol_arg_int(struct json_object *req, const char *name, int64_t min, int64_t max,
		     int64_t *out)
{
	assert(min <= max);
	assert(out);

	struct json_object *v = protocol_arg(req, name);
	int64_t n;

	if (!v)
		return -ENOENT;
	if (!json_object_is_type(v, json_type_int))
		return -EINVAL;
	n = json_object_get_int64(v);
	if (n < min || n > max)
		return -ERANGE;
	*out = n;
	return 0;
}

struct json_object *protocol_ok(void)
{
	struct json_object *o = json_object_new_object();

	json_add_bool(o, "ok", 1);
	return o;
}

struct json_object *protocol_error(const char *msg)
{
	struct json_object *o = json_object_new_object();

	json_add_bool(o, "ok", 0);
	json_add_str(o, "error", msg);
	return o;
}

struct json_object *protocol_errorf(const char *fmt, ...)
{
	char msg[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	return protocol_error(msg);
}

struct json_object *protocol_pct_or_null(double v)
{
	return v < 0 ? NULL : json_new_double(v);
}

static struct json_object *folio_orders(const struct taod_cg_counters *c)
{
	struct json_object *o = json_object_new_object();

	for (int order = 1; order < TAOD_MAX_ORDER; order++) {
		char key[16];

		if (!c->folio_alloc[order])
			continue;
		snprintf(key, sizeof(key), "%d", order);
		json_add_u64(o, key, c->folio_alloc[order]);
	}
	return o;
}

/* Every per-size event of @order in @sizes into @o, in the list's order. */
static void size_events_json(struct json_object *o, const void *sizes, int order)
{
	for (int ev = 0; ev < SIZE_NEVENTS; ev++)
		json_add_u64(o, size_events[ev].json, size_count(sizes, &size_events[ev], order));
}

struct json_object *protocol_size_mix(const void *sizes)
{
	struct json_object *list = json_object_new_array();

	for (int o = 2; o < TAOD_MAX_ORDER; o++) {
		struct json_object *s;

		if (!size_any(sizes, o))
			continue;
		s = json_object_new_object();
		json_add_u64(s, "size_kb", size_kb_of(o));
		size_events_json(s, sizes, o);
		json_object_array_add(list, s);
	}
	return list;
}

/*
 * Per folio size, orders 2 and up that saw anything: the per-size programs'
 * counts (fentry; removed descendants' folded in) and the page allocator's
 * folio allocations by order (tracepoint mode's only per-size figure).
 */
static struct json_object *sizes_json(const struct cgroup_entry *e)
{
	struct json_object *list = json_object_new_array();
	struct taod_cg_sizes shown;

	size_counts_shown(e, &shown);
	for (int order = 2; order < TAOD_MAX_ORDER; order++) {
		uint64_t page_alloc = e->counters.folio_alloc[order];
		uint64_t held = size_held_bytes(e, order);
		struct json_object *o;

		if (!size_any(&shown, order) && !page_alloc && !held)
			continue;
		o = json_object_new_object();
		json_add_i64(o, "order", order);
		json_add_u64(o, "size_kb", size_kb_of(order));
		size_events_json(o, &shown, order);
		json_add_u64(o, "page_alloc", page_alloc);
		json_add_u64(o, "mapped_bytes", held);
		json_add(o, "coverage_pct", protocol_pct_or_null(size_coverage_pct(e, order)));
		json_object_array_add(list, o);
	}
	return list;
}

/* What removed descendants left to this cgroup (cgroup_fold.c). */
static struct json_object *folded_json(const struct cg_evidence *f)
{
	struct json_object *o = json_object_new_object();

	json_add_u64(o, "thp_alloc", f->thp_alloc);
	json_add_u64(o, "pmd_split", f->pmd_split);
	json_add_u64(o, "pmd_split_pages", f->split_pages);
	return o;
}

/* The unit, container and pod @path names (null each where none). */
static void add_workload(struct json_object *o, const char *path)
{
	struct workload_name w;

	workload_name_parse(path, &w);
	workload_name_json(o, &w);
}

struct json_object *protocol_cgroup_row(const struct cgroup_entry *e)
{
	assert(e);

	const struct taod_cg_counters *c = &e->counters;
	struct json_object *o = json_object_new_object();
	uint64_t allocs = cg_thp_allocs(c);

	json_add_u64(o, "id", e->id);
	json_add_str(o, "path", e->path ? e->path : "?");
	json_add_u64(o, "anon_bytes", e->mem_ok ? e->mem.anon_bytes : 0);
	json_add_u64(o, "thp_bytes", e->mem_ok ? e->mem.thp_bytes : 0);
	json_add(o, "coverage_pct", protocol_pct_or_null(e->coverage_pct));
	json_add_u64(o, "thp_alloc", allocs);
	for (size_t i = 0; i < CG_NCOUNTERS; i++) /* the list's counters, in its order */
		json_add_u64(o, cg_counters[i].json, cg_counter_value(c, &cg_counters[i]));
	json_add_double(o, "alloc_rate", e->alloc_rate);
	json_add_double(o, "split_rate", e->split_rate);
	json_add_double(o, "split_ratio", cg_split_ratio(c->pmd_split, allocs));
	json_add(o, "folio_alloc_by_order", folio_orders(c));
	json_add(o, "sizes", sizes_json(e));
	json_add(o, "folded", folded_json(&e->folded));
	add_workload(o, e->path);
	return o;
}

void protocol_add_partly_mapped(struct json_object *row, const struct cgroup_entry *e, bool counted)
{
	struct json_object *by_size = counted ? json_object_new_object() : NULL;
	char kb[32];

	for (int order = 2; counted && order < TAOD_MAX_ORDER; order++)
		if (size_partial_folios(e, order)) {
			snprintf(kb, sizeof(kb), "%" PRIu64, size_kb_of(order));
			json_add_u64(by_size, kb, size_partial_folios(e, order));
		}
	json_add(row, "partly_mapped_thps",
		 counted ? json_object_new_int64((int64_t)size_partial_folios(e, size_pmd_order()))
			 : NULL);
	json_add(row, "partly_mapped_bytes",
		 counted ? json_object_new_int64((int64_t)size_partial_bytes(e)) : NULL);
	json_add(row, "partly_mapped_by_size_kb", by_size);
}

/* @text and a newline in a malloc'd string; NULL when @text is. */
static char *line_of(const char *text)
{
	char *out = text ? malloc(strlen(text) + 2) : NULL;

	if (out)
		sprintf(out, "%s\n", text);
	return out;
}

char *protocol_reply_line(struct json_object *reply)
{
	char *text = json_to_text(reply, JSON_C_TO_STRING_PLAIN);
	char *out = line_of(text);

	free(text);
	json_object_put(reply);
	return out;
}

char *protocol_build_request(const char *command, struct json_object *args)
{
	struct json_object *req = json_object_new_object();
	char *out;

	json_add_str(req, "command", command);
	if (args)
		json_add(req, "args", json_object_get(args));
	out = line_of(json_object_to_json_string_ext(req, JSON_C_TO_STRING_PLAIN));
	json_object_put(req);
	return out;
}

unsigned protocol_wait_s(const char *command)
{
	if (!strcmp(command, "act"))
		return PROTOCOL_ACT_WAIT_S;
	return strcmp(command, "explain") ? PROTOCOL_WAIT_S : PROTOCOL_EXPLAIN_WAIT_S;
}
