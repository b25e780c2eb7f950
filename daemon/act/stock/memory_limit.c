// SPDX-License-Identifier: GPL-2.0
/*
 * Restrict and grant on a stock kernel through the memory controller's
 * own throttle (memory_limit.h): memory.high on v2, which reclaims and
 * throttles a cgroup above it, or the v1 soft limit, which reclaims it
 * first under global pressure. Lowered for a bounded time only, and the
 * value found there is saved before anything is written.
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <dirent.h>
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
#include "common/state_files.h"
#include "common/sat_math.h"

#define PAGE_BYTES 4096ULL

/* One restriction in force, as its state file keeps it. */
struct saved {
	uint64_t id;	       /* the cgroup's inode: a cgroup made again is not it */
	char file[32];	       /* memory.high or memory.soft_limit_in_bytes */
	char original[32];     /* what was there, written back as it was read */
	uint64_t set;	       /* what taod wrote */
	uint64_t until_ms;     /* monotonic: put back from then on */
	char cgroup[PATH_MAX]; /* last in the file: a cgroup path may hold any byte */
};

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

static void state_path(const struct act_ctx *c, uint64_t id, char *path, size_t len)
{
	snprintf(path, len, "%s/%" PRIu64, c->s->stock_restrict_state, id);
}

static int write_saved(FILE *f, const void *ctx)
{
	const struct saved *s = ctx;

	fprintf(f,
		"id=%" PRIu64 "\nfile=%s\noriginal=%s\nset=%" PRIu64 "\nuntil_ms=%" PRIu64
		"\ncgroup=%s",
		s->id, s->file, s->original, s->set, s->until_ms, s->cgroup);
	return ferror(f) ? -EIO : 0;
}

/*
 * The earliest time a saved restriction is due (0: not known, so the
 * directory is read). Ticks before it do not open the state directory.
 */
static uint64_t next_due_ms;

static void due_at(uint64_t until_ms)
{
	if (next_due_ms && until_ms < next_due_ms)
		next_due_ms = until_ms;
}

static int save(const struct act_ctx *c, const struct saved *s)
{
	char path[PATH_MAX];
	int r;

	due_at(s->until_ms);
	state_path(c, s->id, path, sizeof(path));
	r = make_parent_dirs(path, 0700);
	return r ? r : replace_file_atomically(path, 0600, write_saved, s);
}

/* One "key=value\n" field of a state file; @len 0: a number into @num. */
static int field(const char **p, const char *key, char *out, size_t len, uint64_t *num)
{
	size_t k = strlen(key), n;
	char buf[32];

	if (strncmp(*p, key, k) || (*p)[k] != '=')
		return -EINVAL;
	*p += k + 1;
	n = strcspn(*p, "\n");
	if (!(*p)[n] || n >= (len ? len : sizeof(buf)))
		return -EINVAL;
	memcpy(len ? out : buf, *p, n);
	(len ? out : buf)[n] = '\0';
	*p += n + 1;
	return len ? 0 : parse_u64(buf, num);
}

static int load_path(const char *path, struct saved *s)
{
	static char text[PATH_MAX + 256];
	const char *p = text;
	ssize_t n = read_file(path, text, sizeof(text));

	if (n < 0)
		return (int)n;
	if (field(&p, "id", NULL, 0, &s->id) || field(&p, "file", s->file, sizeof(s->file), NULL) ||
	    field(&p, "original", s->original, sizeof(s->original), NULL) ||
	    field(&p, "set", NULL, 0, &s->set) || field(&p, "until_ms", NULL, 0, &s->until_ms) ||
	    strncmp(p, "cgroup=", 7) || strlen(p + 7) >= sizeof(s->cgroup))
		return -EINVAL;
	strcpy(s->cgroup, p + 7);
	return 0;
}

static int load(const struct act_ctx *c, uint64_t id, struct saved *s)
{
	char path[PATH_MAX];

	state_path(c, id, path, sizeof(path));
	return load_path(path, s);
}

static void forget(const struct act_ctx *c, uint64_t id)
{
	char path[PATH_MAX];

	state_path(c, id, path, sizeof(path));
	unlink(path);
}

/*
 * Writes back what was there when taod lowered it, if it is still what
 * taod set: a value someone changed since is theirs. RESULT_DONE,
 * _VANISHED or _FAILED, with @o's detail.
 */
static void write_back(const struct act_ctx *c, const struct saved *s, struct act_outcome *o)
{
	uint64_t id = 0, now;
	int r = cgroup_id(c, s->cgroup, &id);

	if (r || id != s->id) {
		act_outcome_set(o, RESULT_VANISHED, r ? -r : ESTALE,
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
static void put_back(const struct act_ctx *c, const struct saved *s, struct act_outcome *o)
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
static void lower(const struct act_ctx *c, struct saved *s, uint64_t target, uint64_t usage,
		  bool had, struct act_outcome *o)
{
	char v[24];
	int r;

	s->set = target;
	r = save(c, s);
	if (r) {
		act_outcome_set(o, RESULT_FAILED, -r, "saving %s's %s under %s: %s", s->cgroup,
				s->file, c->s->stock_restrict_state, strerror(-r));
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
static void first_restriction(const struct act_ctx *c, struct saved *s, uint64_t id,
			      const char *cgroup, const char *was)
{
	*s = (struct saved){.id = id};
	snprintf(s->file, sizeof(s->file), "%s", limit_file(c->tree));
	snprintf(s->original, sizeof(s->original), "%s", was);
	snprintf(s->cgroup, sizeof(s->cgroup), "%s", cgroup);
}

void memory_limit_restrict(const struct act_ctx *c, const struct action_request *req,
			   uint64_t budget, struct act_outcome *o)
{
	struct saved s = {.file = ""};
	uint64_t id, usage, limit;
	char was[32];
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
	had = !load(c, id, &s) && !strcmp(s.cgroup, req->cgroup);
	if (!had)
		first_restriction(c, &s, id, req->cgroup, was);
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
	r = save(c, &s);
	act_outcome_set(o, r ? RESULT_FAILED : RESULT_DONE, -r, "%s kept at %s, %" PRIu64 " s more",
			s.file, was, c->s->stock_restrict_for_ms / 1000);
}

void memory_limit_grant(const struct act_ctx *c, const struct action_request *req, uint64_t budget,
			struct act_outcome *o)
{
	struct saved s;
	uint64_t id;

	(void)budget;
	if (cgroup_id(c, req->cgroup, &id) || load(c, id, &s)) {
		act_outcome_set(o, RESULT_DONE, 0,
				"%s holds no restriction of taod's: nothing to give back",
				req->cgroup);
		o->kernel_untouched = true;
		return;
	}
	put_back(c, &s, o);
}

static bool all_digits(const char *s)
{
	if (!*s)
		return false;
	for (; *s; s++)
		if (!isdigit((unsigned char)*s))
			return false;
	return true;
}

/* One state file whose time is up (or any, with @all): put back and reported. */
static int expire_one(const struct act_ctx *c, const char *name, bool all, act_restored_fn fn,
		      void *ctx)
{
	struct action_record rec = {.result = RESULT_DONE};
	struct act_outcome o = {0};
	struct saved s;
	char path[PATH_MAX];

	snprintf(path, sizeof(path), "%s/%s", c->s->stock_restrict_state, name);
	if (load_path(path, &s)) {
		/* Unreadable or not taod's format: nothing could be put back from it. */
		log_warn("%s: not a restriction taod saved; removed", path);
		unlink(path);
		return 0;
	}
	if (!all && c->now_ms() < s.until_ms) {
		due_at(s.until_ms);
		return 0;
	}
	put_back(c, &s, &o);
	rec.req =
	    (struct action_request){.kind = ACTION_GRANT, .cgroup_id = s.id, .cgroup = s.cgroup};
	snprintf(rec.req.policy, sizeof(rec.req.policy), "%s",
		 all ? "(taod start or exit)" : "(time up)");
	snprintf(rec.req.evidence, sizeof(rec.req.evidence), "restricted through %s", s.file);
	rec.result = o.result;
	rec.err = o.err;
	snprintf(rec.detail, sizeof(rec.detail), "%s", o.detail);
	fn(ctx, &rec);
	return 1;
}

int memory_limit_expire(const struct act_ctx *c, bool all, act_restored_fn fn, void *ctx)
{
	DIR *d;
	struct dirent *e;
	int n = 0;

	if (!all && next_due_ms && c->now_ms() < next_due_ms)
		return 0;
	next_due_ms = UINT64_MAX; /* lowered by each restriction still held */
	d = c->s->stock_restrict_state[0] ? opendir(c->s->stock_restrict_state) : NULL;
	if (!d)
		return 0;
	while ((e = readdir(d)))
		if (all_digits(e->d_name))
			n += expire_one(c, e->d_name, all, fn, ctx);
	closedir(d);
	return n;
}
