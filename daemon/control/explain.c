// SPDX-License-Identifier: GPL-2.0
/* The explain reply's parts and its text rendering. */
#include "explain.h"

#include <assert.h>
#include <inttypes.h>
#include <json-c/json.h>
#include <string.h>

#include "common/elf_file.h"
#include "common/json_fields.h"
#include "observe/split_cause.h"
#include "common/utf8.h"

struct json_object *explain_causes_json(const __u64 by_cause[TAOD_CAUSE_MAX])
{
	struct json_object *o = json_object_new_object();
	bool done[TAOD_CAUSE_MAX] = {0};

	/* Selection by count keeps the table order on ties; there are few causes. */
	for (;;) {
		int best = -1;

		for (int c = 0; c < TAOD_CAUSE_MAX; c++)
			if (!done[c] && by_cause[c] && (best < 0 || by_cause[c] > by_cause[best]))
				best = c;
		if (best < 0)
			return o;
		done[best] = true;
		json_add_u64(o, split_cause_name(best), by_cause[best]);
	}
}

void explain_sum_causes(const struct task_row *rows, size_t n, __u64 sum[TAOD_CAUSE_MAX])
{
	assert(rows || !n);
	assert(sum);
	memset(sum, 0, sizeof(__u64) * TAOD_CAUSE_MAX);
	for (size_t i = 0; i < n; i++)
		for (int c = 0; c < TAOD_CAUSE_MAX; c++)
			sum[c] += rows[i].c.pmd_split_by_cause[c];
}

static void add_top_cause(struct json_object *o, const __u64 by_cause[TAOD_CAUSE_MAX])
{
	int top = split_cause_top(by_cause);

	json_add_str_or_null(o, "top_cause", top < 0 ? NULL : split_cause_name(top));
}

struct json_object *explain_task_json(const struct task_row *r, const char *cgroup, bool alive,
				      const struct explain_alloc *alloc, struct json_object *stack)
{
	assert(r);

	struct json_object *o = json_object_new_object();

	json_add_u64(o, "pid", r->tgid);
	json_add_str(o, "comm", r->c.comm);
	json_add_str_or_null(o, "cgroup", cgroup);
	json_add_bool(o, "alive", alive);
	json_add_u64(o, "thp_fault_alloc", r->c.thp_fault_alloc);
	json_add_u64(o, "pmd_split", r->c.pmd_split);
	json_add_u64(o, "pmd_unmap_whole", r->c.pmd_unmap_whole);
	json_add(o, "split_causes", explain_causes_json(r->c.pmd_split_by_cause));
	add_top_cause(o, r->c.pmd_split_by_cause);
	json_add_str_or_null(o, "allocator", alloc->rule ? alloc->rule->name : NULL);
	json_add_str_or_null(o, "allocator_from", alloc->rule ? alloc->from : NULL);
	json_add_str_or_null(o, "advice", alloc->rule ? alloc->rule->advice : NULL);
	json_add(o, "stack", stack);
	return o;
}

static const char *str_of(struct json_object *o, const char *key)
{
	struct json_object *v;

	if (!json_object_object_get_ex(o, key, &v) || !json_object_is_type(v, json_type_string))
		return NULL;
	return json_object_get_string(v);
}

static uint64_t u64_of(struct json_object *o, const char *key)
{
	struct json_object *v;

	return json_object_object_get_ex(o, key, &v) ? (uint64_t)json_object_get_int64(v) : 0;
}

/* "munmap 3, mprotect 1", in the reply's order (most first). */
static void print_causes(FILE *f, struct json_object *o)
{
	struct json_object *causes;
	const char *sep = "";

	if (!json_object_object_get_ex(o, "split_causes", &causes) ||
	    !json_object_object_length(causes))
		return;
	fprintf(f, "  by cause: ");
	json_object_object_foreach(causes, name, n)
	{
		fprintf(f, "%s%s %" PRIu64, sep, name, (uint64_t)json_object_get_int64(n));
		sep = ", ";
	}
	fputc('\n', f);
}

/* "N PMD splits, top cause X" (or "none told"). */
static void print_headline(FILE *f, struct json_object *o)
{
	const char *top = str_of(o, "top_cause");

	fprintf(f, "%" PRIu64 " PMD splits, top cause %s", u64_of(o, "pmd_split"),
		top ? top : "none told");
}

/* One frame: the file and offset with the function where the file's
 * symbols say, else the build-id and offset, else the bare IP. */
static void print_frame(FILE *f, unsigned i, struct json_object *fr)
{
	const char *file = str_of(fr, "file"), *id = str_of(fr, "build_id");
	uint64_t off = u64_of(fr, "offset");
	char sym[256];

	fprintf(f, "    #%u ", i);
	if (file && json_object_object_get_ex(fr, "offset", NULL)) {
		text_fputs(file, f); /* a file name is any bytes its creator chose */
		fprintf(f, "+0x%" PRIx64, off);
		if (!elf_symbolize("/", file, off, sym, sizeof(sym))) {
			fputc(' ', f);
			text_fputs(sym, f);
		}
	} else if (id) {
		fputs("build-id ", f);
		text_fputs(id, f);
		fprintf(f, "+0x%" PRIx64, off);
	} else {
		fprintf(f, "ip 0x%" PRIx64, u64_of(fr, "ip"));
	}
	fputc('\n', f);
}

static void print_stack(FILE *f, struct json_object *t)
{
	struct json_object *st, *frames;

	if (!json_object_object_get_ex(t, "stack", &st) || !st ||
	    !json_object_object_get_ex(st, "frames", &frames))
		return;
	fprintf(f, "  last split stack (%" PRIu64 " sampled, %s):\n", u64_of(st, "samples"),
		str_of(st, "cause"));
	for (size_t i = 0; i < json_object_array_length(frames); i++)
		print_frame(f, (unsigned)i, json_object_array_get_idx(frames, i));
}

static void print_task(FILE *f, struct json_object *t)
{
	const char *cg = str_of(t, "cgroup"), *alloc = str_of(t, "allocator");
	struct json_object *alive;

	json_object_object_get_ex(t, "alive", &alive);
	/* Any task may name itself (comm) with terminal escapes: \xNN here. */
	fprintf(f, "pid %" PRIu64 " ", u64_of(t, "pid"));
	text_fputs(str_of(t, "comm"), f);
	fprintf(f, "%s in ", json_object_get_boolean(alive) ? "" : " (gone)");
	text_fputs(cg ? cg : "?", f);
	fputs(": ", f);
	print_headline(f, t);
	fprintf(f, "; %" PRIu64 " whole unmaps\n", u64_of(t, "pmd_unmap_whole"));
	print_causes(f, t);
	if (alloc)
		fprintf(f, "  allocator: %s (from the %s)\n  fix: %s\n", alloc,
			str_of(t, "allocator_from") && !strcmp(str_of(t, "allocator_from"), "stack")
			    ? "splitting call's frames"
			    : "libraries it loads",
			str_of(t, "advice"));
	print_stack(f, t);
}

/* The tenant's class and whether it wants THPs (act_when = need acts for it). */
static void print_want(FILE *f, struct json_object *reply)
{
	struct json_object *v, *want;

	if (!json_object_object_get_ex(reply, "verdict", &v) || !v)
		return;
	fputs("tenant ", f);
	text_fputs(str_of(v, "tenant") ? str_of(v, "tenant") : "?", f);
	if (!str_of(v, "class")) { /* never judged: no class yet */
		fputs(": not judged yet\n", f);
		return;
	}
	fprintf(f, ": %s", str_of(v, "class"));
	if (str_of(v, "held"))
		fprintf(f, " (held: %s)", str_of(v, "held"));
	if (json_object_object_get_ex(v, "wanting", &want))
		fputs(json_object_get_boolean(want)
			  ? ", wanting THPs (its faults fall back or it is below its guarantee)\n"
			  : ", not wanting THPs\n",
		      f);
	else
		fputs(", not judged yet\n", f);
}

int explain_print(FILE *f, struct json_object *reply)
{
	struct json_object *tasks;
	const char *cg = str_of(reply, "cgroup");

	if (!json_object_object_get_ex(reply, "tasks", &tasks) ||
	    !json_object_is_type(tasks, json_type_array))
		return -1;
	if (cg && json_object_object_get_ex(reply, "split_causes", NULL)) {
		fputs("cgroup ", f);
		text_fputs(cg, f);
		fputs(": ", f);
		print_headline(f, reply);
		fprintf(f, ", %zu tasks\n", json_object_array_length(tasks));
		print_causes(f, reply);
		print_want(f, reply);
	}
	for (size_t i = 0; i < json_object_array_length(tasks); i++)
		print_task(f, json_object_array_get_idx(tasks, i));
	return 0;
}
