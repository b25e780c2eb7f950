// SPDX-License-Identifier: GPL-2.0
/*
 * The audit trail: the journal (one structured notice per request), a ring
 * of recent records for `taoctl actions`, and an append-only JSON-lines
 * file that outlives the daemon.
 */
#define _GNU_SOURCE
#include "audit.h"
#include "common/json_fields.h"

#include <assert.h>
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/clock.h"
#include "common/log.h"
#include "common/sink_health.h"
#include "common/state_files.h"
#include "common/utf8.h"
#include "audit_cost.h"
#include "cost_totals.h"

struct audit_log {
	struct action_record *ring;
	size_t cap, count, head; /* head: where the next record goes */
	uint64_t next_id;
	char path[PATH_MAX];
	int fd;
	struct sink_health health;
	uint64_t counts[ACTION_KIND_MAX][RESULT_MAX]; /* records by kind and result */
	struct cost_totals costs;
};

struct audit_log *audit_open(const char *path, size_t ring_cap)
{
	struct audit_log *a = calloc(1, sizeof(*a));

	if (!a)
		return NULL;
	a->ring = calloc(ring_cap ? ring_cap : 1, sizeof(*a->ring));
	if (!a->ring) {
		free(a);
		return NULL;
	}
	a->cap = ring_cap ? ring_cap : 1;
	a->fd = -1;
	audit_set_path(a, path);
	return a;
}

void audit_close(struct audit_log *a)
{
	if (!a)
		return;
	if (a->fd >= 0)
		close(a->fd);
	for (size_t i = 0; i < a->cap; i++)
		free((char *)a->ring[i].req.cgroup);
	free(a->ring);
	free(a);
}

/* Closing is reopening: the next record opens the path anew (rotation). */
void audit_set_path(struct audit_log *a, const char *path)
{
	if (a->fd >= 0)
		close(a->fd);
	a->fd = -1;
	snprintf(a->path, sizeof(a->path), "%s", path ? path : "");
	sink_set_on(&a->health, a->path[0]);
}

/*
 * One write per line: O_APPEND keeps concurrent lines whole. A short write
 * (the filesystem filled up mid-line) is cut off again, so the file stays
 * whole JSON lines. 0 or -errno.
 */
static int write_line(int fd, const char *text, size_t n)
{
	char *line = malloc(n + 1);
	off_t end = lseek(fd, 0, SEEK_END);
	ssize_t w;
	int e;

	if (!line)
		return -ENOMEM;
	memcpy(line, text, n);
	line[n] = '\n';
	w = write(fd, line, n + 1);
	e = w < 0 ? errno : ENOSPC; /* a short write: no room for the rest */
	free(line);
	if (w == (ssize_t)(n + 1))
		return 0;
	if (w > 0 && end >= 0 && ftruncate(fd, end))
		log_debug("audit log: cutting a partial line: %s", strerror(errno));
	return -e;
}

/*
 * Whether the open file is still the one the path names: not unlinked
 * (rotated away and deleted) nor renamed with the path now missing or
 * another file (logrotate's move, with or without its create).
 */
static bool audit_fd_current(const struct audit_log *a)
{
	struct stat fst, pst;

	return a->fd >= 0 && !fstat(a->fd, &fst) && fst.st_nlink > 0 && !lstat(a->path, &pst) &&
	       pst.st_dev == fst.st_dev && pst.st_ino == fst.st_ino;
}

/* The open file, or the path opened anew when it names another (rotation). */
static int audit_fd(struct audit_log *a)
{
	int r;

	if (audit_fd_current(a))
		return a->fd;
	if (a->fd >= 0)
		close(a->fd);
	r = make_parent_dirs(a->path, 0700);
	a->fd = r ? r : open_private_file(a->path, O_WRONLY | O_APPEND, 0600);
	if (a->fd < 0) {
		r = a->fd;
		a->fd = -1;
	}
	return r < 0 ? r : a->fd;
}

/* Once per new error: a full disk must not flood the journal either. */
static void file_failed(struct audit_log *a, const char *what, int err)
{
	char why[SINK_ERROR_MAX];

	snprintf(why, sizeof(why), "%s: %s", what, strerror(err));
	if (sink_failed(&a->health, why, 1))
		log_warn("audit log %s: %s; records are lost until it is writable "
			 "(said again only if the error changes)",
			 a->path, why);
	/* Reopened at the next record: the path may be fixed by then. */
	if (a->fd >= 0)
		close(a->fd);
	a->fd = -1;
}

/* Writes @o (taken) as a line of the file, if there is one. */
static void append_json(struct audit_log *a, struct json_object *o)
{
	char *text;
	int fd, w;

	if (!a->path[0]) {
		json_object_put(o);
		return;
	}
	fd = audit_fd(a);
	if (fd < 0) {
		json_object_put(o);
		file_failed(a, "open", -fd);
		return;
	}
	text = json_to_text(o, JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE);
	json_object_put(o);
	w = text ? write_line(fd, text, strlen(text)) : -ENOMEM;
	free(text);
	if (w)
		file_failed(a, "write", -w);
	else if (sink_succeeded(&a->health))
		log_info("audit log %s: written again; %llu records lost so far", a->path,
			 (unsigned long long)a->health.records_lost);
}

static void append_line(struct audit_log *a, const struct action_record *r)
{
	append_json(a, action_record_json(r));
}

void audit_benefit(struct audit_log *a, enum action_kind kind, const char *cgroup,
		   const char *policy, const struct action_benefit *b)
{
	struct json_object *o = json_object_new_object();

	json_add_u64(o, "id", b->id);
	json_add_u64(o, "time_ms", realtime_ms());
	json_add_str(o, "record", "benefit");
	json_add_str(o, "action", action_kind_name(kind));
	json_add_str(o, "cgroup", cgroup);
	json_add_str(o, "policy", policy);
	json_add(o, "benefit", action_benefit_json(b));
	log_struct(LOG_INFO,
		   &(struct log_fields){.id = LOG_MSG_BENEFIT,
					.cgroup = cgroup,
					.action = action_kind_name(kind),
					.policy = policy},
		   "action id=%llu benefit after %llu s: free PMD blocks %+lld, %u wanting "
		   "tenants, coverage %+.2f points",
		   (unsigned long long)b->id, (unsigned long long)(b->after_ms / 1000),
		   (long long)b->free_pmd_regained, b->wanting, b->coverage_change);
	cost_totals_benefit(&a->costs, kind, b);
	append_json(a, o);
}

/*
 * Values quoted and escaped: a cgroup name cannot forge fields or lines.
 * The journal gets them as fields too (journalctl TAOD_ACTION=shatter).
 */
static void log_audit_notice(const struct action_record *r)
{
	struct log_fields f = {.id = LOG_MSG_ACTION,
			       .cgroup = r->req.cgroup,
			       .action = action_kind_name(r->req.kind),
			       .result = action_result_name(r->result),
			       .policy = r->req.policy};
	char *cg = text_escape_dup(r->req.cgroup && r->req.cgroup[0] ? r->req.cgroup : "-", true);
	char policy[128], evidence[512], detail[512];

	if (!cg)
		return;
	text_escape(r->req.policy[0] ? r->req.policy : "-", policy, sizeof(policy), true);
	text_escape(r->req.evidence, evidence, sizeof(evidence), true);
	text_escape(r->detail, detail, sizeof(detail), true);
	log_struct(LOG_NOTICE, &f,
		   "action id=%llu kind=%s cgroup=\"%s\" pid=%d bytes=%llu policy=\"%s\" "
		   "result=%s errno=%d took_ms=%llu evidence=\"%s\" detail=\"%s\"",
		   (unsigned long long)r->id, action_kind_name(r->req.kind), cg, (int)r->req.pid,
		   (unsigned long long)r->bytes, policy, action_result_name(r->result), r->err,
		   (unsigned long long)r->took_ms, evidence, detail);
	free(cg);
}

void audit_record(struct audit_log *a, struct action_record *r)
{
	assert(a);
	assert(r);

	struct action_record *slot = &a->ring[a->head];

	r->id = ++a->next_id;
	r->time_ms = realtime_ms();
	log_audit_notice(r);
	free((char *)slot->req.cgroup);
	*slot = *r;
	/* The request's cgroup is borrowed; the ring outlives it. */
	slot->req.cgroup = strdup(r->req.cgroup ? r->req.cgroup : "");
	a->head = (a->head + 1) % a->cap;
	if (a->count < a->cap)
		a->count++;
	if ((unsigned)r->req.kind < ACTION_KIND_MAX && (unsigned)r->result < RESULT_MAX)
		a->counts[r->req.kind][r->result]++;
	cost_totals_add(&a->costs, r->req.kind, &r->cost);
	append_line(a, r);
}

size_t audit_count(const struct audit_log *a)
{
	return a->count;
}

const struct action_record *audit_get(const struct audit_log *a, size_t i)
{
	assert(a);
	if (i >= a->count)
		return NULL;
	return &a->ring[(a->head + a->cap - 1 - i) % a->cap];
}

const struct cost_totals *audit_cost_totals(const struct audit_log *a)
{
	return &a->costs;
}

const struct sink_health *audit_health(const struct audit_log *a)
{
	return &a->health;
}

uint64_t audit_action_count(const struct audit_log *a, enum action_kind kind,
			    enum action_result result)
{
	if ((unsigned)kind >= ACTION_KIND_MAX || (unsigned)result >= RESULT_MAX)
		return 0;
	return a->counts[kind][result];
}

/* @n numbers named by @names, as one object. */
static struct json_object *numbers_json(const char *const *names, const uint64_t *v, size_t n)
{
	struct json_object *o = json_object_new_object();

	for (size_t i = 0; i < n; i++)
		json_add_u64(o, names[i], v[i]);
	return o;
}

/* THPs by outcome, as the kernel counted them. */
static struct json_object *shatter_counts_json(const struct shatter_counts *c)
{
	static const char *const names[] = {"shattered", "failed", "discarded", "split"};
	const uint64_t v[] = {c->shattered, c->failed, c->discarded, c->split};

	return numbers_json(names, v, 4);
}

/* What the split path did, on every kernel. */
static struct json_object *split_tally_json(const struct shatter_counts *c)
{
	static const char *const names[] = {"bytes", "thps", "partly_mapped", "pages_migrated"};
	const uint64_t v[] = {c->bytes_split, c->thps_split, c->partial_thps, c->pages_migrated};

	return numbers_json(names, v, 4);
}

struct json_object *action_record_json(const struct action_record *r)
{
	struct json_object *o = json_object_new_object();

	json_add_u64(o, "id", r->id);
	json_add_u64(o, "time_ms", r->time_ms);
	json_add_str(o, "cgroup", r->req.cgroup ? r->req.cgroup : "");
	json_add_u64(o, "cgroup_id", r->req.cgroup_id);
	json_add(o, "pid", json_object_new_int64(r->req.pid));
	json_add_str(o, "action", action_kind_name(r->req.kind));
	json_add_u64(o, "bytes", r->bytes);
	json_add_u64(o, "asked_bytes", r->req.bytes);
	json_add_bool(o, "dry_run", r->req.dry_run);
	json_add_str(o, "policy", r->req.policy);
	json_add_str(o, "evidence", r->req.evidence);
	json_add_str_or_null(o, "top_cause", r->req.top_cause[0] ? r->req.top_cause : NULL);
	json_add_str(o, "result", action_result_name(r->result));
	json_add(o, "errno", json_object_new_int(r->err));
	json_add_str(o, "errno_name",
		     r->err && strerrorname_np(r->err) ? strerrorname_np(r->err) : "");
	json_add_str(o, "error", r->err ? strerror(r->err) : "");
	json_add_str(o, "detail", r->detail);
	json_add_u64(o, "took_ms", r->took_ms);
	if (r->shatter.counted)
		json_add(o, "shatter", shatter_counts_json(&r->shatter));
	if (r->shatter.split_counted)
		json_add(o, "split", split_tally_json(&r->shatter));
	if (r->cost.measured)
		json_add(o, "cost", action_cost_json(&r->cost));
	return o;
}
