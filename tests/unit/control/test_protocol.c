// SPDX-License-Identifier: GPL-2.0
#include <criterion/criterion.h>
#include <signal.h>
#include <errno.h>
#include <json-c/json.h>
#include <stdlib.h>
#include <string.h>

#include "account/cgroup_state.h"
#include "taod/protocol.h"

Test(protocol, request_round_trip)
{
	struct json_object *args = json_object_new_object(), *req;
	char err[128];
	char *text;
	int64_t limit;
	const char *glob;

	json_object_object_add(args, "limit", json_object_new_int(5));
	json_object_object_add(args, "glob", json_object_new_string("/a/*"));
	text = protocol_build_request("top-tasks", args);
	cr_assert_eq(text[strlen(text) - 1], '\n');
	cr_assert_eq(protocol_parse_request(text, &req, err, sizeof(err)), 0, "%s", err);
	cr_assert_str_eq(protocol_command(req), "top-tasks");
	cr_assert_eq(protocol_arg_int(req, "limit", 1, 10, &limit), 0);
	cr_assert_eq(limit, 5);
	cr_assert_eq(protocol_arg_string(req, "glob", &glob), 0);
	cr_assert_str_eq(glob, "/a/*");
	cr_assert_eq(protocol_arg_int(req, "limit", 6, 10, &limit), -ERANGE);
	cr_assert_eq(protocol_arg_string(req, "limit", &glob), -EINVAL);
	cr_assert_eq(protocol_arg_string(req, "absent", &glob), -ENOENT);
	json_object_put(req);
	json_object_put(args);
	free(text);
}

Test(protocol, malformed_requests_explained)
{
	static const struct {
		const char *text, *want;
	} cases[] = {
	    {"", "empty request"},
	    {"{\"command\": ", "malformed JSON"},
	    {"[1,2]", "string \"command\""},
	    {"{\"command\": 3}", "string \"command\""},
	    {"{\"command\": \"x\", \"args\": 1}", "\"args\" must be an object"},
	    {"\xff\xfe", "malformed JSON"},
	};
	char err[128];
	struct json_object *req;

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		cr_assert_neq(protocol_parse_request(cases[i].text, &req, err, sizeof(err)), 0);
		cr_assert_null(req);
		cr_assert(strstr(err, cases[i].want), "case %zu: %s", i, err);
	}
}

Test(protocol, nesting_depth_is_bounded)
{
	char text[256] = "{\"command\":\"x\",\"args\":{\"a\":";
	char err[128];
	struct json_object *req;

	for (int i = 0; i < 40; i++)
		strcat(text, "[");
	cr_assert_neq(protocol_parse_request(text, &req, err, sizeof(err)), 0);
}

Test(protocol, only_first_line_counts)
{
	char err[128];
	struct json_object *req;

	cr_assert_eq(
	    protocol_parse_request("{\"command\":\"ping\"}\ngarbage", &req, err, sizeof(err)), 0);
	cr_assert_str_eq(protocol_command(req), "ping");
	json_object_put(req);
}

Test(protocol, cgroup_row_fields)
{
	struct cgroup_entry e = {.id = 42, .path = "/a", .mem_ok = true, .coverage_pct = 50};
	struct json_object *row, *v;

	e.mem.anon_bytes = 4 << 20;
	e.mem.thp_bytes = 2 << 20;
	e.counters.thp_fault_alloc = 8;
	e.counters.thp_collapse_alloc = 2;
	e.counters.pmd_split = 5;
	e.counters.folio_alloc[4] = 7;
	row = protocol_cgroup_row(&e);
	cr_assert(json_object_object_get_ex(row, "thp_alloc", &v));
	cr_assert_eq(json_object_get_uint64(v), 10);
	cr_assert(json_object_object_get_ex(row, "split_ratio", &v));
	cr_assert_float_eq(json_object_get_double(v), 0.5, 1e-9);
	cr_assert(json_object_object_get_ex(row, "coverage_pct", &v));
	cr_assert_float_eq(json_object_get_double(v), 50.0, 1e-9);
	cr_assert(json_object_object_get_ex(row, "folio_alloc_by_order", &v));
	cr_assert(json_object_object_get_ex(v, "4", &v));
	cr_assert_eq(json_object_get_uint64(v), 7);
	json_object_put(row);

	e.coverage_pct = -1;
	row = protocol_cgroup_row(&e);
	cr_assert(json_object_object_get_ex(row, "coverage_pct", &v));
	cr_assert_null(v, "unknown coverage must be null");
	json_object_put(row);
}

/* Every reply, refusals included, is one line of valid UTF-8 JSON. */
Test(protocol, reply_line_is_one_line_of_valid_utf8)
{
	char *line = protocol_reply_line(protocol_errorf("no cgroup /a\xff\n/b"));
	struct json_object *back;

	cr_assert_not_null(line);
	cr_assert_str_eq(line, "{\"ok\":false,\"error\":\"no cgroup \\/a\xef\xbf\xbd\\n\\/b\"}\n");
	back = json_tokener_parse(line);
	cr_assert_not_null(back);
	cr_assert_not(json_object_get_boolean(json_object_object_get(back, "ok")));
	json_object_put(back);
	free(line);
}

/* Field @key of the @i-th entry of @sizes. */
static uint64_t size_field(struct json_object *sizes, size_t i, const char *key)
{
	struct json_object *v;

	cr_assert(json_object_object_get_ex(json_object_array_get_idx(sizes, i), key, &v), "%s",
		  key);
	return json_object_get_uint64(v);
}

/* Per size: the orders that saw anything, with their size in KiB; the
 * per-size programs' counts beside the page allocator's. */
Test(protocol, cgroup_row_lists_sizes_with_events)
{
	struct cgroup_entry e = {.id = 9, .path = "/m", .coverage_pct = -1};
	struct json_object *row, *sizes;

	e.sizes.fault_alloc[4] = 32;
	e.sizes.partial[4] = 8;
	e.sizes.split[4] = 4;
	e.sizes.split[9] = 1; /* a PMD THP split: listed too */
	e.counters.folio_alloc[2] = 3;
	e.counters.folio_alloc[1] = 5; /* order 1 is never a THP: left out */
	row = protocol_cgroup_row(&e);
	cr_assert(json_object_object_get_ex(row, "sizes", &sizes));
	cr_assert_eq(json_object_array_length(sizes), 3);
	cr_assert_eq(size_field(sizes, 0, "order"), 2);
	cr_assert_eq(size_field(sizes, 0, "page_alloc"), 3);
	cr_assert_eq(size_field(sizes, 1, "size_kb"), 64);
	cr_assert_eq(size_field(sizes, 1, "fault_alloc"), 32);
	cr_assert_eq(size_field(sizes, 1, "partial_unmap"), 8);
	cr_assert_eq(size_field(sizes, 1, "split"), 4);
	cr_assert_eq(size_field(sizes, 2, "size_kb"), 2048);
	json_object_put(row);
}

/* The range is the command's own, not the client's: an empty one is a bug. */
Test(protocol, protocol_arg_int_with_min_above_max_aborts, .signal = SIGABRT)
{
	struct json_object *req = json_object_new_object();
	int64_t n;

	protocol_arg_int(req, "limit", 10, 1, &n);
}
