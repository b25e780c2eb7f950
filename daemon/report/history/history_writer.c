// SPDX-License-Identifier: GPL-2.0
/*
 * The daemon's side of the history: opens the database for writing and
 * records one batch per call in one transaction.
 *
 * Durability: WAL with synchronous = FULL. A kill -9 cannot corrupt a WAL
 * database at any synchronous level (uncommitted WAL frames are ignored
 * at the next open); FULL also syncs the WAL at every commit, so even a
 * power loss costs at most the batch being written. One fsync per batch
 * (every N ticks) is cheap.
 */
#include <assert.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "history_columns.h"
#include "history_internal.h"
#include "common/log.h"
#include "common/state_files.h"

/* HS_LAST_SAMPLE and HS_INSERT_SAMPLE name the counter columns: made from the list. */
static const char *const stmt_sql[HS_MAX] = {
    [HS_FIND_CG] = "SELECT cg, class FROM cgroups WHERE path = ?1 AND cgroup_id = ?2"
		   " ORDER BY cg DESC LIMIT 1",
    [HS_INSERT_CG] = "INSERT INTO cgroups(path, cgroup_id, first_seen_ms, last_seen_ms)"
		     " VALUES(?1, ?2, ?3, ?3)",
    [HS_UPDATE_CG] = "UPDATE cgroups SET last_seen_ms = ?2, class = ?3 WHERE cg = ?1",
    [HS_INSERT_CHANGE] = "INSERT INTO class_changes VALUES(?1, ?2, ?3, ?4)",
    [HS_INSERT_ZONE] = "INSERT OR REPLACE INTO zone_samples(t_ms, node, zone, present_pages,"
		       " managed_pages, free_pages, free_blocks, zone_order)"
		       " VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)",
    [HS_INSERT_MTHP] = "INSERT OR REPLACE INTO mthp_samples VALUES(?1, ?2, ?3, ?4)",
    [HS_INSERT_TAO] = "INSERT OR REPLACE INTO tao_samples VALUES(?1, ?2, ?3)",
    [HS_INSERT_ACTION] = "INSERT INTO actions(t_ms, cg, cgroup, cgroup_id, kind, result, err,"
			 " pid, bytes, dry_run, policy, evidence, detail, shattered,"
			 " shatter_failed, shatter_discarded, shatter_split, run, audit_id,"
			 " split_bytes, split_thps, split_partial, pages_migrated)"
			 " VALUES(?1, (SELECT cg FROM cgroups WHERE cgroup_id = ?3 AND path = ?2"
			 "  ORDER BY cg DESC LIMIT 1), ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10,"
			 " ?11, ?12, ?13, ?14, ?15, ?16, ?17, ?18, ?19, ?20, ?21, ?22)",
    [HS_INSERT_BATCH] = "INSERT OR REPLACE INTO batches VALUES(?1, ?2)",
    [HS_INSERT_RUN] = "INSERT INTO runs(started_ms, pid, version) VALUES(?1, ?2, ?3)",
    [HS_INSERT_PRESSURE] = "INSERT OR REPLACE INTO pressure_samples VALUES(?1, ?2, ?3)",
    [HS_INSERT_COST] = "INSERT OR REPLACE INTO action_costs VALUES(?1, ?2, ?3)",
    [HS_INSERT_BENEFIT] = "INSERT OR REPLACE INTO action_benefits SELECT id, ?3, ?4, ?5, ?6,"
			  " ?7, ?8, ?9 FROM actions WHERE run = ?1 AND audit_id = ?2",
};

static uint32_t be32(const unsigned char *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

/*
 * Whether an existing file at @path may be taken as taod's database, read
 * from its bytes alone (nothing of a refused file is changed, not even its
 * mode): a regular file of taod's user, empty, or a SQLite database whose
 * user_version is a schema taod knows (0 only for a database of one page,
 * i.e. no tables yet). 0 (also when there is no file) or -errno, @err says why.
 */
static int check_existing(const char *path, char *err, size_t err_len)
{
	static const char magic[16] = "SQLite format 3";
	unsigned char head[100];
	int fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	const char *why = NULL;
	struct stat st;
	ssize_t n;

	if (fd < 0 && errno == ENOENT)
		return 0;
	if (fd < 0) {
		int e = errno;

		snprintf(err, err_len, "%s: %s", path, strerror(e));
		return -e;
	}
	if (fstat(fd, &st) || !S_ISREG(st.st_mode))
		why = "not a regular file";
	else if (st.st_uid != geteuid())
		why = "a file of another user";
	n = why ? 0 : read(fd, head, sizeof(head));
	close(fd);
	if (!why && st.st_size && (n != (ssize_t)sizeof(head) || memcmp(head, magic, 16)))
		why = "not a SQLite database";
	else if (!why && st.st_size &&
		 (be32(head + 60) > HISTORY_SCHEMA_VERSION ||
		  (!be32(head + 60) && be32(head + 28) > 1)))
		why = "a SQLite database taod did not make";
	if (!why)
		return 0;
	snprintf(err, err_len, "%s: %s; refused, left as it is", path, why);
	return -EPERM;
}

/*
 * The database holds every cgroup's history: 0600 in a 0700 directory.
 * SQLite gives the -wal and -shm files the database file's mode.
 */
static int create_private(const char *path)
{
	int r = make_parent_dirs(path, 0700);
	int fd = r ? r : open_private_file(path, O_RDWR, 0600);

	if (fd < 0)
		return fd;
	close(fd);
	return 0;
}

static int configure(sqlite3 *db, char *err, size_t err_len)
{
	static const char pragmas[] = "PRAGMA journal_mode = WAL;"
				      "PRAGMA synchronous = FULL;"
				      "PRAGMA journal_size_limit = 16777216;"
				      "PRAGMA foreign_keys = OFF;";
	char *msg = NULL;

	sqlite3_busy_timeout(db, 2000);
	if (sqlite3_exec(db, pragmas, NULL, NULL, &msg) != SQLITE_OK) {
		snprintf(err, err_len, "%s", msg ? msg : sqlite3_errmsg(db));
		sqlite3_free(msg);
		return -EIO;
	}
	return 0;
}

/* The SQL of statement @i, malloc'd (NULL on ENOMEM). */
static char *stmt_text(enum history_stmt i)
{
	if (i == HS_LAST_SAMPLE)
		return hist_last_sample_sql(cg_counters, CG_NCOUNTERS, HISTORY_SCHEMA_VERSION);
	if (i == HS_INSERT_SAMPLE)
		return hist_insert_sample_sql(cg_counters, CG_NCOUNTERS, HISTORY_SCHEMA_VERSION);
	if (i == HS_INSERT_SIZE)
		return hist_size_insert_sql(size_events, SIZE_NEVENTS, HISTORY_SCHEMA_VERSION);
	return strdup(stmt_sql[i]);
}

static int prepare_all(struct history *h, char *err, size_t err_len)
{
	for (int i = 0; i < HS_MAX; i++) {
		char *sql = stmt_text(i);
		int r = sql ? sqlite3_prepare_v3(h->db, sql, -1, SQLITE_PREPARE_PERSISTENT,
						 &h->st[i], NULL)
			    : SQLITE_NOMEM;

		free(sql);
		if (r != SQLITE_OK) {
			snprintf(err, err_len, "preparing statement %d: %s", i,
				 r == SQLITE_NOMEM ? "out of memory" : sqlite3_errmsg(h->db));
			return -EIO;
		}
	}
	return 0;
}

int history_open(struct history **out, const char *path, char *err, size_t err_len)
{
	assert(out);
	assert(path);

	struct history *h = calloc(1, sizeof(*h));
	int r;

	*out = NULL;
	if (!h)
		return -ENOMEM;
	r = check_existing(path, err, err_len);
	if (!r) {
		r = create_private(path);
		if (r)
			snprintf(err, err_len, "creating %s: %s", path, strerror(-r));
	}
	if (r) {
		free(h);
		return r;
	}
	if (sqlite3_open_v2(path, &h->db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, NULL)) {
		snprintf(err, err_len, "%s: %s", path,
			 h->db ? sqlite3_errmsg(h->db) : "out of memory");
		history_close(h);
		return -EIO;
	}
	/* auto_vacuum before WAL: it only sticks while the file is empty. */
	sqlite3_exec(h->db, "PRAGMA auto_vacuum = INCREMENTAL", NULL, NULL, NULL);
	r = configure(h->db, err, err_len);
	if (!r)
		r = history_schema_apply(h->db, err, err_len);
	if (!r)
		r = prepare_all(h, err, err_len);
	if (r) {
		history_close(h);
		return r;
	}
	*out = h;
	return 0;
}

void history_close(struct history *h)
{
	if (!h)
		return;
	for (int i = 0; i < HS_MAX; i++)
		sqlite3_finalize(h->st[i]);
	for (size_t i = 0; i < h->n; i++)
		free(h->cgs[i].path);
	free(h->cgs);
	for (size_t i = 0; i < h->nnext; i++) /* a batch left open */
		free(h->next[i].path);
	free(h->next);
	free(h->mthp_last);
	sqlite3_close(h->db);
	free(h);
}

struct sqlite3 *history_db(struct history *h)
{
	return h->db;
}

/* Resets @s for reuse, and returns it. */
sqlite3_stmt *hst(struct history *h, enum history_stmt s)
{
	assert(h);
	assert(s < HS_MAX);
	sqlite3_reset(h->st[s]);
	sqlite3_clear_bindings(h->st[s]);
	return h->st[s];
}

int hst_done(struct history *h, sqlite3_stmt *st)
{
	int rc = sqlite3_step(st);

	if (rc != SQLITE_DONE && rc != SQLITE_ROW)
		return history_failed(h, "writing");
	return 0;
}

int history_failed(struct history *h, const char *what)
{
	snprintf(h->last_error, sizeof(h->last_error), "%s: %s", what, sqlite3_errmsg(h->db));
	log_debug("history: %s", h->last_error);
	return -EIO;
}

const char *history_last_error(const struct history *h)
{
	return h->last_error[0] ? h->last_error : "unknown error";
}

void bind_text_or_null(sqlite3_stmt *st, int i, const char *s)
{
	if (s && *s)
		sqlite3_bind_text(st, i, s, -1, SQLITE_TRANSIENT);
	else
		sqlite3_bind_null(st, i);
}

int history_begin_run(struct history *h, uint64_t wall_ms, const char *version)
{
	assert(h);
	assert(version);

	sqlite3_stmt *st = hst(h, HS_INSERT_RUN);

	sqlite3_bind_int64(st, 1, (sqlite3_int64)wall_ms);
	sqlite3_bind_int64(st, 2, getpid());
	sqlite3_bind_text(st, 3, version, -1, SQLITE_STATIC);
	if (hst_done(h, st))
		return -EIO;
	h->run = sqlite3_last_insert_rowid(h->db);
	return 0;
}
