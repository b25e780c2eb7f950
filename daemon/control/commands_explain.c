// SPDX-License-Identifier: GPL-2.0
/* `explain`: a cgroup's or a task's PMD splits by cause, and the fix. */
#include <errno.h>
#include <stdio.h>
#include <json-c/json.h>
#include <stdlib.h>
#include <string.h>

#include "act/read/proc_tasks.h"
#include "commands.h"
#include "explain.h"
#include "common/json_fields.h"
#include "file_lookups.h"
#include "taod/protocol.h"
#include "observe/split_cause.h"
#include "split_stack.h"
#include "stack_allocator.h"

#define EXPLAIN_TASKS 20 /* most splitting tasks of a cgroup shown */

static const struct cgroup_entry *cgroup_by_path(const struct taod *d, const char *path)
{
	for (size_t i = 0; i < d->cgroups.n; i++)
		if (d->cgroups.v[i]->path && !strcmp(d->cgroups.v[i]->path, path))
			return d->cgroups.v[i];
	return NULL;
}

/* Keeps the rows of cgroup @id (@pid 0) or of task @pid; returns how many. */
static size_t keep_rows(struct task_row *rows, size_t n, uint64_t id, int64_t pid)
{
	size_t k = 0;

	for (size_t i = 0; i < n; i++)
		if (pid ? rows[i].tgid == (uint32_t)pid : rows[i].c.cgroup_id == id)
			rows[k++] = rows[i];
	return k;
}

/* Task @r as JSON; its maps name its allocator and its stack's files,
 * within the request's file budget (the maps are the tenant's). */
static struct json_object *task_json(struct taod *d, const struct task_row *r,
				     struct file_lookups *l)
{
	const struct cgroup_entry *e = cgroup_table_find(&d->cgroups, r->c.cgroup_id);
	bool alive = task_alive(r->tgid);
	char *maps = alive && r->c.pmd_split && file_lookups_time_left(l)
			 ? task_maps_read((pid_t)r->tgid)
			 : NULL;
	struct taod_split_stack st;
	struct json_object *stack = NULL, *o;
	struct explain_alloc alloc;
	char prefix[64];

	snprintf(prefix, sizeof(prefix), "/proc/%u/root", r->tgid);
	if (!thp_observe_split_stack(d->obs, r->tgid, &st))
		stack = split_stack_json(&st, maps, prefix, l);
	/* The splitting call's frames name its allocator; the maps only what
	 * is loaded (mimalloc preloaded beside glibc). */
	alloc.rule = stack_allocator(stack, (pid_t)r->tgid, prefix, maps, l);
	alloc.from = "stack";
	if (!alloc.rule) {
		/* With the budget spent, a library the maps name still tells. */
		alloc.rule = file_lookups_time_left(l) ? allocator_of_pid((pid_t)r->tgid, maps)
						       : allocator_of_libs(maps);
		alloc.from = "maps";
	}
	o = explain_task_json(r, e ? e->path : NULL, alive, &alloc, stack);
	free(maps);
	return o;
}

/* The tasks' rows as JSON, most splits first; how the file budget went. */
static void add_tasks(struct taod *d, struct json_object *o, const struct task_row *rows, size_t n)
{
	struct json_object *list = json_object_new_array(), *budget = json_object_new_object();
	struct file_lookups l;

	file_lookups_init(&l);
	for (size_t i = 0; i < n && i < EXPLAIN_TASKS; i++)
		json_object_array_add(list, task_json(d, &rows[i], &l));
	json_add(o, "tasks", list);
	json_add_u64(budget, "opened", l.opened);
	json_add_str_or_null(budget, "stopped", l.stopped);
	json_add(o, "file_lookups", budget);
	file_lookups_free(&l);
}

/* The cgroup's totals over its tasks. */
static void add_cgroup_totals(struct json_object *o, const char *path, const struct task_row *rows,
			      size_t n)
{
	__u64 sum[TAOD_CAUSE_MAX];
	uint64_t splits = 0;
	int top;

	explain_sum_causes(rows, n, sum);
	for (size_t i = 0; i < n; i++)
		splits += rows[i].c.pmd_split;
	top = split_cause_top(sum);
	json_add_str(o, "cgroup", path);
	json_add_u64(o, "pmd_split", splits);
	json_add(o, "split_causes", explain_causes_json(sum));
	json_add_str_or_null(o, "top_cause", top < 0 ? NULL : split_cause_name(top));
}

/* Reads args: exactly one of cgroup (a tracked path) and pid. */
static struct json_object *explain_args(struct taod *d, struct json_object *req,
					const struct cgroup_entry **cg, int64_t *pid)
{
	const char *path = NULL;
	int r = protocol_arg_int(req, "pid", 1, INT32_MAX, pid);

	if (r == -EINVAL || r == -ERANGE)
		return protocol_errorf("args.pid must be an integer from 1 to %d", INT32_MAX);
	if (protocol_arg_string(req, "cgroup", &path) == -EINVAL)
		return protocol_error("args.cgroup must be a string");
	if (!path == !*pid)
		return protocol_error("explain needs exactly one of args.cgroup and args.pid");
	if (*pid) /* a thread's id: its process's rows */
		*pid = proc_thread_group((pid_t)*pid);
	if (path && path[0] != '/')
		return protocol_errorf("args.cgroup \"%s\": expected a cgroup path starting with /",
				       path);
	if (path && !(*cg = cgroup_by_path(d, path)))
		return protocol_errorf("args.cgroup \"%s\": not a memory cgroup taod tracks", path);
	return NULL;
}

struct json_object *cmd_explain(struct taod *d, struct json_object *req)
{
	const struct cgroup_entry *cg = NULL;
	int64_t pid = 0;
	struct json_object *o = explain_args(d, req, &cg, &pid);
	struct task_row *rows;
	size_t n;

	if (o)
		return o;
	rows = calloc(TAOD_MAX_TASKS, sizeof(*rows));
	if (!rows)
		return protocol_error("out of memory");
	n = keep_rows(rows, task_rows_collect(d->obs, rows, TAOD_MAX_TASKS), cg ? cg->id : 0, pid);
	if (pid && !n) {
		free(rows);
		return task_alive((uint32_t)pid)
			   ? protocol_errorf("pid %lld: taod has counted no THP event of it",
					     (long long)pid)
			   : protocol_errorf("no such process %lld", (long long)pid);
	}
	o = protocol_ok();
	if (cg) {
		add_cgroup_totals(o, cg->path, rows, n);
		json_add(o, "verdict", tenant_verdict_json(d, cg->id));
	}
	add_tasks(d, o, rows, n);
	free(rows);
	return o;
}
