// SPDX-License-Identifier: GPL-2.0
#include "history_sink.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "common/log.h"
#include "common/version.h"

/* Once per new error: a full disk or a missing directory fails every batch. */
static void failed(struct history_sink *s, const char *why, uint64_t lost)
{
	if (sink_failed(&s->health, why, lost))
		log_warn("history %s: %s; batches are lost until it is usable (tried again every "
			 "batch, said again only if the error changes)",
			 s->path, why);
}

static int try_open(struct history_sink *s)
{
	char err[SINK_ERROR_MAX] = "";
	struct stat st;
	int r = history_open(&s->h, s->path, err, sizeof(err));

	if (!r)
		r = history_begin_run(s->h, s->start_wall_ms, taod_version());
	if (!r && stat(s->path, &st))
		r = -errno;
	if (r) {
		if (!err[0])
			snprintf(err, sizeof(err), "%s", strerror(-r));
		history_close(s->h);
		s->h = NULL;
		failed(s, err, 0);
		return r;
	}
	s->dev = st.st_dev;
	s->ino = st.st_ino;
	return 0;
}

void history_sink_open(struct history_sink *s, const char *path, uint64_t start_wall_ms)
{
	snprintf(s->path, sizeof(s->path), "%s", path);
	s->start_wall_ms = start_wall_ms;
	sink_set_on(&s->health, path[0]);
	if (!path[0]) {
		log_info("history: off ([history] path is empty)");
		return;
	}
	if (try_open(s))
		log_warn("history: cannot use %s; running without history until it can", s->path);
}

/* Whether the path still names the file taod writes (rm -r of its directory, mv). */
static bool moved_away(struct history_sink *s)
{
	struct stat st;

	return stat(s->path, &st) || st.st_dev != s->dev || st.st_ino != s->ino;
}

struct history *history_sink_get(struct history_sink *s, uint64_t lost)
{
	if (!s->path[0])
		return NULL;
	if (s->h && moved_away(s)) {
		failed(s, "the database file was removed or replaced; reopening", 0);
		history_close(s->h);
		s->h = NULL;
	}
	if (!s->h && !try_open(s))
		log_info("history %s: opened again", s->path);
	if (!s->h)
		s->health.records_lost += lost;
	return s->h;
}

void history_sink_wrote(struct history_sink *s, int r, uint64_t lost, const char *what)
{
	char why[SINK_ERROR_MAX];

	if (r) {
		snprintf(why, sizeof(why), "%s not written: %s", what,
			 s->h ? history_last_error(s->h) : strerror(-r));
		failed(s, why, lost);
	} else if (sink_succeeded(&s->health)) {
		log_info("history %s: written again; %llu records lost so far", s->path,
			 (unsigned long long)s->health.records_lost);
	}
}

void history_sink_close(struct history_sink *s)
{
	history_close(s->h);
	s->h = NULL;
}
