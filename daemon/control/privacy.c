// SPDX-License-Identifier: GPL-2.0
#include "privacy.h"

#include <json-c/json.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/cgroup_dir.h"
#include "common/json_fields.h"
#include "common/rootfs.h"
#include "taod/protocol.h"

enum row_kind {
	ROW_CGROUP, /* dropped unless the reader owns its cgroup */
	ROW_TASK,   /* dropped unless the task or its cgroup is the reader's;
		     * TASK_PRIVATE nulled unless the task is */
	ROW_REFUSED /* the whole reply: denied */
};

/*
 * Each command's private rows, applied in this order. @list: the reply's
 * array of rows (NULL: the reply itself is the row, when it has @cgroup);
 * @within: rows nested in each kept row of @list, whose cgroup is then
 * that row's; @cgroup: the row's field naming its cgroup's path.
 */
static const struct private_rows {
	const char *command;
	enum row_kind kind;
	const char *list, *within, *cgroup;
} private_rows[] = {
    {"cgroups", ROW_CGROUP, "cgroups", NULL, "path"},
    {"top-tasks", ROW_TASK, "tasks", NULL, "cgroup"},
    {"actions", ROW_CGROUP, "actions", NULL, "cgroup"},
    {"abusers", ROW_CGROUP, "cgroups", NULL, "cgroup"},
    {"abusers", ROW_TASK, "cgroups", "offenders", NULL},
    {"explain", ROW_CGROUP, NULL, NULL, "cgroup"},
    {"explain", ROW_TASK, "tasks", NULL, "cgroup"},
    {"policy", ROW_CGROUP, NULL, NULL, "cgroup"},
    {"metrics", ROW_REFUSED, NULL, NULL, NULL},
};

/* What a task runs and where its code lies (a stack's addresses and files
 * would also tell its ASLR layout). */
static const char *const task_private[] = {"comm", "stack", "allocator", "advice"};

static const char *str_field(struct json_object *row, const char *key)
{
	struct json_object *v;

	if (!key || !json_object_object_get_ex(row, key, &v))
		return NULL;
	return json_object_get_string(v);
}

/* A delegated cgroup: its directory is the reader's. */
static bool cgroup_owned(const struct taod *d, const char *path, uid_t uid)
{
	struct stat st;
	bool owned;
	int fd;

	if (!path || path[0] != '/')
		return false;
	fd = cgroup_dir_open(&d->tree, path);
	if (fd < 0)
		return false;
	owned = !fstat(fd, &st) && st.st_uid == uid;
	close(fd);
	return owned;
}

/* /proc/PID belongs to the task's effective uid (to root when it is not
 * dumpable); a task gone is nobody's. */
static bool pid_owned(int64_t pid, uid_t uid)
{
	char rel[48], path[PATH_MAX];
	struct stat st;

	if (pid <= 0)
		return false;
	snprintf(rel, sizeof(rel), "/proc/%lld", (long long)pid);
	return !rootfs_path(path, sizeof(path), rel) && !stat(path, &st) && st.st_uid == uid;
}

static bool task_owned(struct json_object *row, uid_t uid)
{
	struct json_object *pid;

	return json_object_object_get_ex(row, "pid", &pid) &&
	       pid_owned(json_object_get_int64(pid), uid);
}

/* Whether @row stays; a task row kept loses what is not the reader's. */
static bool row_visible(const struct taod *d, const struct private_rows *r, struct json_object *row,
			uid_t uid, bool in_own_row)
{
	bool own_cgroup = r->cgroup ? cgroup_owned(d, str_field(row, r->cgroup), uid) : in_own_row;

	if (r->kind == ROW_CGROUP)
		return own_cgroup;
	if (task_owned(row, uid))
		return true;
	for (size_t i = 0; own_cgroup && i < sizeof(task_private) / sizeof(*task_private); i++)
		if (json_object_object_get_ex(row, task_private[i], NULL))
			json_add(row, task_private[i], NULL);
	return own_cgroup;
}

/* Keeps @rows' visible rows, in their order. */
static void filter_rows(const struct taod *d, const struct private_rows *r,
			struct json_object *rows, uid_t uid, bool in_own_row)
{
	size_t n = json_object_array_length(rows);

	for (size_t i = n; i-- > 0;)
		if (!row_visible(d, r, json_object_array_get_idx(rows, i), uid, in_own_row))
			json_object_array_del_idx(rows, i, 1);
}

/* Applies @r to @reply: NULL when done, else the error replacing it. */
static struct json_object *apply(const struct taod *d, const struct private_rows *r,
				 struct json_object *reply, uid_t uid)
{
	struct json_object *rows, *nested;

	if (r->kind == ROW_REFUSED)
		return protocol_errorf(
		    "permission denied: \"%s\" names every tenant; it needs root "
		    "or the [control] group (uid %u asked)",
		    r->command, (unsigned)uid);
	if (!r->list) {
		const char *path = str_field(reply, r->cgroup);

		if (!path || cgroup_owned(d, path, uid))
			return NULL;
		return protocol_errorf("permission denied: cgroup \"%s\" is not uid %u's", path,
				       (unsigned)uid);
	}
	if (!json_object_object_get_ex(reply, r->list, &rows) ||
	    !json_object_is_type(rows, json_type_array))
		return NULL;
	if (!r->within) {
		filter_rows(d, r, rows, uid, false);
		return NULL;
	}
	for (size_t i = 0; i < json_object_array_length(rows); i++)
		if (json_object_object_get_ex(json_object_array_get_idx(rows, i), r->within,
					      &nested) &&
		    json_object_is_type(nested, json_type_array))
			filter_rows(d, r, nested, uid, true);
	return NULL;
}

static bool reply_ok(struct json_object *reply)
{
	struct json_object *ok;

	return reply && json_object_object_get_ex(reply, "ok", &ok) && json_object_get_boolean(ok);
}

struct json_object *privacy_filter(const struct taod *d, const struct peer *peer,
				   const char *command, struct json_object *reply)
{
	if (peer->sees_all || !reply_ok(reply))
		return reply;
	for (size_t i = 0; i < sizeof(private_rows) / sizeof(*private_rows); i++) {
		struct json_object *denied;

		if (strcmp(private_rows[i].command, command))
			continue;
		denied = apply(d, &private_rows[i], reply, peer->uid);
		if (denied) {
			json_object_put(reply);
			return denied;
		}
	}
	return reply;
}

struct json_object *privacy_precheck(const struct taod *d, const struct peer *peer,
				     const char *command, struct json_object *request)
{
	const char *path = NULL;
	int64_t pid = 0;

	if (peer->sees_all || (strcmp(command, "explain") && strcmp(command, "policy")))
		return NULL;
	/* Malformed arguments are the command's to name. */
	if (!protocol_arg_string(request, "cgroup", &path) && path[0] == '/' &&
	    !cgroup_owned(d, path, peer->uid))
		return protocol_errorf("args.cgroup \"%s\": no memory cgroup of uid %u's that taod "
				       "tracks",
				       path, (unsigned)peer->uid);
	if (!protocol_arg_int(request, "pid", 1, INT32_MAX, &pid) && !pid_owned(pid, peer->uid))
		return protocol_errorf("no process %lld of uid %u's", (long long)pid,
				       (unsigned)peer->uid);
	return NULL;
}
