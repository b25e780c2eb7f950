// SPDX-License-Identifier: GPL-2.0
/*
 * Restrict and grant on a stock kernel through the memory controller's
 * own throttle (memory_limit.h): memory.high on v2, which reclaims and
 * throttles a cgroup above it, or the v1 soft limit, which reclaims it
 * first under global pressure. Lowered for a bounded time only, and the
 * value found there is saved before anything is written.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/cgroup_dir.h"
#include "common/log.h"
#include "memory_limit.h"
#include "common/parse.h"
#include "common/rootfs.h"
#include "restrict_state.h"
#include "common/sat_math.h"

#define PAGE_BYTES 4096ULL

static const char *limit_file(const struct cgroup_tree *t)
{
	return t->version == 2 ? "memory.high" : "memory.soft_limit_in_bytes";
}

static const char *usage_file(const struct cgroup_tree *t)
{
	return t->version == 2 ? "memory.current" : "memory.usage_in_bytes";
}

const char *memory_limit_withheld(const struct act_ctx *c, enum action_kind k)
{
	if ((k != ACTION_RESTRICT && k != ACTION_GRANT) || c->s->stock_restrict)
		return NULL;
	return "[enforce] stock_restrict = yes lowers memory.high (v1: the soft limit) for a while";
}

static int cgroup_id(const struct act_ctx *c, const char *cgroup, uint64_t *id)
{
	struct stat st;
	int dir = cgroup_dir_open(c->tree, cgroup), r = 0;

	if (dir < 0)
		return dir;
	if (fstat(dir, &st))
		r = -errno;
	close(dir);
	*id = (uint64_t)st.st_ino;
	return r;
}

/* A limit file's value, "max" as UINT64_MAX; @text (32 bytes) gets it as read. */
static int read_limit(const struct act_ctx *c, const char *cgroup, const char *file, char *text,
		      uint64_t *v)
{
	char buf[64];
	ssize_t n = cgroup_file_read(c->tree, cgroup, file, buf, sizeof(buf));

	if (n < 0)
		return (int)n;
	buf[strcspn(buf, "\n")] = '\0';
	if (text)
		snprintf(text, 32, "%.31s", buf);
	if (!strcmp(buf, "max")) {
		*v = UINT64_MAX;
		return 0;
	}
	return parse_u64(buf, v);
}

/*
 * The earliest time a saved restriction under @dir is due (ms 0: not
 * known, so the directory is read). Ticks before it do not open it; a
 * time learnt from another directory (the setting changed) is not known.
 */
static struct {
	char dir[PATH_MAX];
	uint64_t ms;
} next_due;

static void due_at(const char *dir, uint64_t until_ms)
{
	if (next_due.ms && until_ms < next_due.ms && !strcmp(next_due.dir, dir))
		next_due.ms = until_ms;
}

static int save(const struct act_ctx *c, const struct restriction *s, char *why, size_t len)
{
	due_at(c->s->stock_restrict_state, s->until_ms);
	return restrict_state_save(c->s->stock_restrict_state, s, why, len);
}

static void forget(const struct act_ctx *c, uint64_t id)
{
	restrict_state_forget(c->s->stock_restrict_state, id);
}

/*
 * Points @s at where its cgroup is now: the saved path while it is still
 * that cgroup, else the path the cgroup walk knows for its id (a v1
 * cgroup renamed keeps its inode). 0, or -ESTALE when it is gone.
 */
static int locate(const struct act_ctx *c, struct restriction *s)
{
	const char *now;
	uint64_t id;

	if (!cgroup_id(c, s->cgroup, &id) && id == s->id)
		return 0;
	now = c->cgroup_path ? c->cgroup_path(c->cgroup_path_ctx, s->id) : NULL;
	if (!now || strlen(now) >= sizeof(s->cgroup) || cgroup_id(c, now, &id) || id != s->id)
		return -ESTALE;
	strcpy(s->cgroup, now);
	return 0;
}

/*
 * Writes back what was there when taod lowered it, if it is still what
 * taod set: a value someone changed since is theirs. RESULT_DONE,
 * _VANISHED or _FAILED, with @o's detail.
 */
static void write_back(const struct act_ctx *c, struct restriction *s, struct act_outcome *o)
{
	uint64_t now;
	int r = locate(c, s);

	if (r) {
		act_outcome_set(o, RESULT_VANISHED, -r,
				"cgroup %s is gone: its %s needs no putting back", s->cgroup,
				s->file);
		return;
	}
	r = read_limit(c, s->cgroup, s->file, NULL, &now);
	if (!r && now != s->set) {
		act_outcome_set(o, RESULT_DONE, 0,
				"%s left at %" PRIu64 ": changed since taod set %" PRIu64, s->file,
				now, s->set);
		o->kernel_untouched = true;
		return;
	}
	r = r ? r : cgroup_file_write(c->tree, s->cgroup, s->file, s->original);
	if (r)
		act_outcome_set(o, RESULT_FAILED, -r, "putting %s back to %s: %s", s->file,
				s->original, strerror(-r));
	else
		act_outcome_set(o, RESULT_DONE, 0, "put %s back to %s (taod had set %" PRIu64 ")",
				s->file, s->original, s->set);
}

/* The state file goes once the value is back (a crash before keeps it), or
 * once putting it back failed: it is audited, and retrying would repeat it. */
static void put_back(const struct act_ctx *c, struct restriction *s, struct act_outcome *o)
{
	write_back(c, s, o);
	forget(c, s->id);
}

/* The new limit: a share of what the cgroup uses now, in whole pages. */
static uint64_t target_of(const struct act_ctx *c, uint64_t usage)
{
	return usage / 100 * c->s->stock_restrict_percent / PAGE_BYTES * PAGE_BYTES;
}

/* Lowers the limit to @target, the original saved first. */
static void lower(const struct act_ctx *c, struct restriction *s, uint64_t target, uint64_t usage,
		  bool had, struct act_outcome *o)
{
	char v[24], why[PATH_MAX + 64];
	int r;

	s->set = target;
	r = save(c, s, why, sizeof(why));
	if (r) {
		act_outcome_set(o, RESULT_FAILED, -r, "saving %s's %s: %s", s->cgroup, s->file,
				why);
		o->kernel_untouched = true;
		return;
	}
	snprintf(v, sizeof(v), "%" PRIu64, target);
	r = cgroup_file_write(c->tree, s->cgroup, s->file, v);
	if (r) {
		if (!had)
			forget(c, s->id);
		act_outcome_set(o, RESULT_FAILED, -r, "writing %" PRIu64 " to %s: %s", target,
				s->file, strerror(-r));
		return;
	}
	act_outcome_set(o, RESULT_DONE, 0,
			"%s lowered to %" PRIu64 " (%" PRIu64 "%% of %" PRIu64
			" in use) for %" PRIu64 " s; was %s",
			s->file, target, c->s->stock_restrict_percent, usage,
			c->s->stock_restrict_for_ms / 1000, s->original);
}

/* What a cgroup taod has not restricted yet starts its state with. */
static void first_restriction(const struct act_ctx *c, struct restriction *s, uint64_t id,
			      const char *cgroup, const char *was)
{
	*s = (struct restriction){.id = id};
	snprintf(s->file, sizeof(s->file), "%s", limit_file(c->tree));
	snprintf(s->original, sizeof(s->original), "%s", was);
	snprintf(s->cgroup, sizeof(s->cgroup), "%s", cgroup);
}

/*
 * What restrict starts from: the saved state of @id while its limit is
 * still what taod set; otherwise someone changed it since (or there was
 * none), that ended taod's restriction, and the value there now is the
 * one to put back. True when there was a restriction still in force.
 */
static bool restriction_of(const struct act_ctx *c, struct restriction *s, uint64_t id,
			   const char *cgroup, const char *was, uint64_t limit)
{
	char why[PATH_MAX + 64];
	int r = restrict_state_load(c->s->stock_restrict_state, id, limit_file(c->tree), s, why,
				    sizeof(why));

	if (!r && s->set == limit) {
		snprintf(s->cgroup, sizeof(s->cgroup), "%s", cgroup); /* renamed: v1 keeps the id */
		return true;
	}
	if (!r)
		forget(c, id);
	first_restriction(c, s, id, cgroup, was);
	return false;
}

void memory_limit_restrict(const struct act_ctx *c, const struct action_request *req,
			   uint64_t budget, struct act_outcome *o)
{
	struct restriction s = {.file = ""};
	uint64_t id, usage, limit;
	char was[32], why[PATH_MAX + 64];
	bool had;
	int r;

	(void)budget;
	r = cgroup_id(c, req->cgroup, &id);
	if (!r)
		r = read_limit(c, req->cgroup, usage_file(c->tree), NULL, &usage);
	if (!r)
		r = read_limit(c, req->cgroup, limit_file(c->tree), was, &limit);
	if (r || strlen(req->cgroup) >= sizeof(s.cgroup)) {
		act_outcome_set(o, RESULT_FAILED, r ? -r : ENAMETOOLONG, "reading %s's %s: %s",
				req->cgroup, limit_file(c->tree), strerror(r ? -r : ENAMETOOLONG));
		o->kernel_untouched = true;
		return;
	}
	had = restriction_of(c, &s, id, req->cgroup, was, limit);
	s.until_ms = sat_add_u64(c->now_ms(), c->s->stock_restrict_for_ms);
	if (target_of(c, usage) < limit) {
		lower(c, &s, target_of(c, usage), usage, had, o);
		return;
	}
	o->kernel_untouched = true;
	if (!had) {
		act_outcome_set(o, RESULT_NO_GAIN, 0,
				"%s is %s already, at or below %" PRIu64 "%% of %" PRIu64 " in use",
				s.file, was, c->s->stock_restrict_percent, usage);
		return;
	}
	r = save(c, &s, why, sizeof(why));
	if (r)
		act_outcome_set(o, RESULT_FAILED, -r, "saving %s's %s: %s", s.cgroup, s.file, why);
	else
		act_outcome_set(o, RESULT_DONE, 0, "%s kept at %s, %" PRIu64 " s more", s.file, was,
				c->s->stock_restrict_for_ms / 1000);
}

void memory_limit_grant(const struct act_ctx *c, const struct action_request *req, uint64_t budget,
			struct act_outcome *o)
{
	struct restriction s;
	char why[PATH_MAX + 64];
	uint64_t id;

	(void)budget;
	if (cgroup_id(c, req->cgroup, &id) ||
	    restrict_state_load(c->s->stock_restrict_state, id, limit_file(c->tree), &s, why,
				sizeof(why)) ||
	    strlen(req->cgroup) >= sizeof(s.cgroup)) {
		act_outcome_set(o, RESULT_DONE, 0,
				"%s holds no restriction of taod's: nothing to give back",
				req->cgroup);
		o->kernel_untouched = true;
		return;
	}
	strcpy(s.cgroup, req->cgroup); /* the id is the one saved: it may have been renamed */
	put_back(c, &s, o);
}

struct expiry {
	const struct act_ctx *c;
	bool all;
	act_restored_fn fn;
	void *ctx;
};

/* One saved restriction whose time is up (or any, with all): put back and reported. */
static int expire_one(void *ctx, const struct restriction *saved)
{
	const struct expiry *x = ctx;
	struct action_record rec = {.result = RESULT_DONE};
	struct act_outcome o = {0};
	struct restriction s = *saved;

	if (!x->all && x->c->now_ms() < s.until_ms) {
		due_at(x->c->s->stock_restrict_state, s.until_ms);
		return 0;
	}
	put_back(x->c, &s, &o);
	rec.req =
	    (struct action_request){.kind = ACTION_GRANT, .cgroup_id = s.id, .cgroup = s.cgroup};
	snprintf(rec.req.policy, sizeof(rec.req.policy), "%s",
		 x->all ? "(taod start or exit)" : "(time up)");
	snprintf(rec.req.evidence, sizeof(rec.req.evidence), "restricted through %s", s.file);
	rec.result = o.result;
	rec.err = o.err;
	snprintf(rec.detail, sizeof(rec.detail), "%s", o.detail);
	x->fn(x->ctx, &rec);
	return 1;
}

int memory_limit_expire(const struct act_ctx *c, bool all, act_restored_fn fn, void *ctx)
{
	const char *dir = c->s->stock_restrict_state;
	struct expiry x = {.c = c, .all = all, .fn = fn, .ctx = ctx};

	if (!all && next_due.ms && !strcmp(next_due.dir, dir) && c->now_ms() < next_due.ms)
		return 0;
	snprintf(next_due.dir, sizeof(next_due.dir), "%s", dir);
	next_due.ms = UINT64_MAX; /* lowered by each restriction still held */
	return restrict_state_each(dir, limit_file(c->tree), expire_one, &x);
}
