// SPDX-License-Identifier: GPL-2.0
/* The explain reply: a task's causes, most first, and its text rendering. */
#define _GNU_SOURCE
#include <criterion/criterion.h>
#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "control/explain.h"
#include "common/json_fields.h"

static struct task_row sample_row(void)
{
	struct task_row r = {.tgid = 4242};

	strcpy(r.c.comm, "redis-server");
	r.c.thp_fault_alloc = 40;
	r.c.pmd_split = 12;
	r.c.pmd_unmap_whole = 3;
	r.c.pmd_split_by_cause[TAOD_CAUSE_MUNMAP] = 2;
	r.c.pmd_split_by_cause[TAOD_CAUSE_MADV_DONTNEED] = 9;
	r.c.pmd_split_by_cause[TAOD_CAUSE_COW] = 1;
	return r;
}

/* The text explain_print gives for @reply (a static buffer). */
static const char *render(struct json_object *reply)
{
	static char text[4096];
	FILE *f;

	memset(text, 0, sizeof(text));
	f = fmemopen(text, sizeof(text) - 1, "w");
	cr_assert_not_null(f);
	cr_assert_eq(explain_print(f, reply), 0);
	cr_assert_eq(fclose(f), 0);
	return text;
}

Test(explain, explain_causes_json_lists_most_first_and_skips_zeros)
{
	struct task_row r = sample_row();
	struct json_object *o = explain_causes_json(r.c.pmd_split_by_cause);

	cr_assert_str_eq(json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN),
			 "{\"madvise_dontneed\":9,\"munmap\":2,\"cow\":1}");
	json_object_put(o);
}

Test(explain, explain_task_json_names_top_cause_and_fix)
{
	struct task_row r = sample_row();
	const struct explain_alloc jemalloc = {
	    allocator_detect("7f00-7f01 r-xp 0 08:01 1 /usr/lib/libjemalloc.so.2\n", false),
	    "maps"};
	const struct explain_alloc none = {NULL, NULL};
	struct json_object *t = explain_task_json(&r, "/svc/cache", true, &jemalloc, NULL), *v;

	cr_assert(json_object_object_get_ex(t, "top_cause", &v));
	cr_assert_str_eq(json_object_get_string(v), "madvise_dontneed");
	cr_assert(json_object_object_get_ex(t, "allocator", &v));
	cr_assert_str_eq(json_object_get_string(v), "jemalloc");
	cr_assert(json_object_object_get_ex(t, "allocator_from", &v));
	cr_assert_str_eq(json_object_get_string(v), "maps");
	json_object_put(t);
	/* Gone, nothing told: nulls, not made-up values. */
	memset(r.c.pmd_split_by_cause, 0, sizeof(r.c.pmd_split_by_cause));
	t = explain_task_json(&r, NULL, false, &none, NULL);
	cr_assert(json_object_object_get_ex(t, "top_cause", &v) && !v);
	cr_assert(json_object_object_get_ex(t, "allocator", &v) && !v);
	cr_assert(json_object_object_get_ex(t, "cgroup", &v) && !v);
	json_object_put(t);
}

Test(explain, explain_print_renders_cgroup_and_tasks)
{
	struct task_row rows[2] = {sample_row(), sample_row()};
	const struct explain_alloc glibc = {allocator_detect("", false), "stack"},
				   none = {NULL, NULL};
	struct json_object *reply = json_object_new_object(), *tasks = json_object_new_array();
	__u64 sum[TAOD_CAUSE_MAX];
	const char *text;

	rows[1].tgid = 4343;
	rows[1].c.pmd_split = 0;
	memset(rows[1].c.pmd_split_by_cause, 0, sizeof(rows[1].c.pmd_split_by_cause));
	explain_sum_causes(rows, 2, sum);
	json_add_str(reply, "cgroup", "/svc/cache");
	json_add_u64(reply, "pmd_split", 12);
	json_add(reply, "split_causes", explain_causes_json(sum));
	json_add_str(reply, "top_cause", "madvise_dontneed");
	json_object_array_add(tasks, explain_task_json(&rows[0], "/svc/cache", true, &glibc, NULL));
	json_object_array_add(tasks, explain_task_json(&rows[1], "/svc/cache", false, &none, NULL));
	json_add(reply, "tasks", tasks);
	text = render(reply);
	cr_assert_str_eq(
	    text, "cgroup /svc/cache: 12 PMD splits, top cause madvise_dontneed, 2 tasks\n"
		  "  by cause: madvise_dontneed 9, munmap 2, cow 1\n"
		  "pid 4242 redis-server in /svc/cache: 12 PMD splits, top cause "
		  "madvise_dontneed; 3 whole unmaps\n"
		  "  by cause: madvise_dontneed 9, munmap 2, cow 1\n"
		  "  allocator: glibc malloc (from the splitting call's frames)\n"
		  "  fix: GLIBC_TUNABLES=glibc.malloc.trim_threshold=N (M_TRIM_THRESHOLD), N "
		  "above what the program frees at once (e.g. 268435456), stops malloc trimming "
		  "the tops of its heaps and per-thread arenas, which leaves THPs partly mapped; "
		  "glibc.malloc.hugetlb=1 alone does not stop that\n"
		  "pid 4343 redis-server (gone) in /svc/cache: 0 PMD splits, top cause none "
		  "told; 3 whole unmaps\n");
	json_object_put(reply);
}

Test(explain, explain_print_refuses_a_reply_without_tasks)
{
	struct json_object *reply = json_object_new_object();
	FILE *f = fopen("/dev/null", "w");

	cr_assert_eq(explain_print(f, reply), -1);
	fclose(f);
	json_object_put(reply);
}

static struct json_object *frame(const char *file, const char *build_id, int64_t off, int64_t ip)
{
	struct json_object *f = json_object_new_object();

	if (build_id)
		json_add_str(f, "build_id", build_id);
	if (ip >= 0)
		json_add_i64(f, "ip", ip);
	if (off >= 0)
		json_add_i64(f, "offset", off);
	json_add_str_or_null(f, "file", file);
	return f;
}

Test(explain, explain_print_renders_a_split_stack)
{
	struct task_row r = sample_row();
	struct json_object *reply = json_object_new_object(), *tasks = json_object_new_array();
	struct json_object *stack = json_object_new_object(), *frames = json_object_new_array();
	const struct explain_alloc none = {NULL, NULL};

	json_object_array_add(frames, frame("/nonexistent/lib.so", NULL, 0x10, 0x7f0000000010));
	json_object_array_add(frames, frame(NULL, "abcd", 0x20, -1));
	json_object_array_add(frames, frame(NULL, NULL, -1, 0x7f0000000100));
	json_add_u64(stack, "samples", 3);
	json_add_str(stack, "cause", "munmap");
	json_add(stack, "frames", frames);
	json_object_array_add(tasks, explain_task_json(&r, "/svc", true, &none, stack));
	json_add(reply, "tasks", tasks);
	cr_assert_str_eq(
	    render(reply),
	    "pid 4242 redis-server in /svc: 12 PMD splits, top cause madvise_dontneed; "
	    "3 whole unmaps\n"
	    "  by cause: madvise_dontneed 9, munmap 2, cow 1\n"
	    "  last split stack (3 sampled, munmap):\n"
	    "    #0 /nonexistent/lib.so+0x10\n"
	    "    #1 build-id abcd+0x20\n"
	    "    #2 ip 0x7f0000000100\n");
	json_object_put(reply);
}
