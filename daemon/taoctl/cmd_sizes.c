// SPDX-License-Identifier: GPL-2.0
#include "cmd_sizes.h"

#include <json-c/json.h>
#include <stdint.h>
#include <stdio.h>

#include "format.h"
#include "observe/size_events.h"
#include "common/json_fields.h"

/* Folios broken (left partially mapped or split) per folio made (faulted
 * or collapsed), as a percentage; "-" with none made. */
static const char *broken_pct(char *buf, size_t len, struct json_object *s)
{
	uint64_t made = 0, broken = 0;

	for (int ev = 0; ev < SIZE_NEVENTS; ev++) {
		uint64_t n = jget_u64(s, size_events[ev].json);

		if (size_events[ev].made)
			made += n;
		else
			broken += n;
	}
	if (!made)
		return "-";
	snprintf(buf, len, "%.1f%%", 100.0 * (double)broken / (double)made);
	return buf;
}

/* Share of the cgroup's anon memory held in folios of this size; "-"
 * where memory.stat showed none. */
static const char *coverage(char *buf, size_t len, struct json_object *s)
{
	struct json_object *v = jget(s, "coverage_pct");

	if (!v || json_object_is_type(v, json_type_null))
		return "-";
	snprintf(buf, len, "%.1f%%", json_object_get_double(v));
	return buf;
}

static void print_text(struct json_object *list)
{
	int w = column_width(list, "path", 6);

	printf("%-*s %8s", w, "CGROUP", "SIZE");
	for (int ev = 0; ev < SIZE_NEVENTS; ev++)
		printf(" %8s", size_events[ev].column);
	printf(" %8s %8s %9s %8s\n", "BROKEN", "PGALLOC", "MAPPED", "COVERAGE");
	for (size_t i = 0; i < json_object_array_length(list); i++) {
		struct json_object *row = json_object_array_get_idx(list, i);
		struct json_object *sizes = jget(row, "sizes");

		for (size_t k = 0; sizes && k < json_object_array_length(sizes); k++) {
			struct json_object *s = json_object_array_get_idx(sizes, k);
			char size[32], pct[16], mapped[32], cov[16];

			printf("%-*s %8s", w, jget_text(row, "path"),
			       fmt_bytes(size, sizeof(size), jget_u64(s, "size_kb") * 1024));
			for (int ev = 0; ev < SIZE_NEVENTS; ev++)
				printf(" %8llu",
				       (unsigned long long)jget_u64(s, size_events[ev].json));
			printf(" %8s %8llu %9s %8s\n", broken_pct(pct, sizeof(pct), s),
			       (unsigned long long)jget_u64(s, "page_alloc"),
			       fmt_bytes(mapped, sizeof(mapped), jget_u64(s, "mapped_bytes")),
			       coverage(cov, sizeof(cov), s));
		}
	}
}

void print_cgroup_sizes(struct json_object *list, bool json)
{
	struct json_object *out;

	if (!json) {
		print_text(list);
		return;
	}
	out = json_object_new_array();
	for (size_t i = 0; i < json_object_array_length(list); i++) {
		struct json_object *row = json_object_array_get_idx(list, i);
		struct json_object *o = json_object_new_object();

		json_add_u64(o, "id", jget_u64(row, "id"));
		json_add(o, "path", json_object_get(jget(row, "path")));
		json_add(o, "sizes", json_object_get(jget(row, "sizes")));
		json_object_array_add(out, o);
	}
	print_json(out);
	json_object_put(out);
}
