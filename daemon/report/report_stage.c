// SPDX-License-Identifier: GPL-2.0
/* The daemon's report stage: history batches and the metrics textfile. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "taod/daemon.h"
#include "taod/decide.h"
#include "taod/history.h"
#include "taod/log.h"
#include "taod/machine_stats.h"
#include "taod/metrics.h"
#include "taod/version.h"
#include "taod/report_stage.h"

/* Retention runs every this many batches: deletes are cheap, not free. */
#define RETAIN_EVERY_BATCHES 30

void report_stage_open(struct taod *d)
{
	char err[512] = "";
	int r;

	d->machine = calloc(1, sizeof(*d->machine));
	if (!d->cfg->history_path[0]) {
		log_info("history: off ([history] path is empty)");
		return;
	}
	r = history_open(&d->history, d->cfg->history_path, err, sizeof(err));
	if (!r)
		r = history_begin_run(d->history, d->start_wall_ms, taod_version());
	if (r) {
		log_warn("history: cannot use %s (%s); running without history",
			 d->cfg->history_path, err[0] ? err : strerror(-r));
		history_close(d->history);
		d->history = NULL;
		return;
	}
	history_retain(d->history, realtime_ms(), d->cfg->history_retention_ms,
		       d->cfg->history_max_bytes);
	log_info("history: %s, a batch every %llu ticks", d->cfg->history_path,
		 (unsigned long long)d->cfg->history_every);
}

/* Class of a cgroup as decide last judged it; NULL before any judgement. */
static const char *decided_class(void *ctx, const struct cgroup_entry *e)
{
	const struct taod *d = ctx;
	const struct cg_judge *j = decide_find(&d->decide, e->id);

	return j ? cg_class_name(j->cls) : NULL;
}

/* The actor's record hook: every action, done or suppressed, is history. */
void report_stage_record_action(void *ctx, const struct action_record *rec)
{
	struct taod *d = ctx;

	if (d->history && history_record_action(d->history, rec))
		log_warn("history: action %llu not recorded", (unsigned long long)rec->id);
}

static void write_batch(struct taod *d)
{
	uint64_t now = realtime_ms();

	if (history_record(d->history, &d->cgroups, now, d->machine, decided_class, d)) {
		log_warn("history: batch at tick %llu not written", (unsigned long long)d->ticks);
		return;
	}
	d->history_last_tick = d->ticks;
	if (++d->history_batches % RETAIN_EVERY_BATCHES == 0)
		history_retain(d->history, now, d->cfg->history_retention_ms,
			       d->cfg->history_max_bytes);
}

void report_stage_tick(struct taod *d)
{
	bool batch = d->history && d->ticks - d->history_last_tick >= d->cfg->history_every;
	bool textfile = d->cfg->metrics_textfile[0];
	struct metrics_input in;
	int r;

	if ((batch || textfile) && d->machine)
		machine_stats_read(&d->cfg->k, d->machine);
	if (batch)
		write_batch(d);
	if (!textfile)
		return;
	taod_metrics_input(d, &in);
	r = metrics_textfile_write(d->cfg->metrics_textfile, &in);
	/* Once per new error, not every tick: anyone who can write the
	 * directory could otherwise flood the journal. */
	if (r && r != d->textfile_err)
		log_warn("metrics textfile %s: %s (said again only if it changes)",
			 d->cfg->metrics_textfile, strerror(-r));
	else if (!r && d->textfile_err)
		log_info("metrics textfile %s: written again", d->cfg->metrics_textfile);
	d->textfile_err = r;
}

void report_stage_close(struct taod *d)
{
	if (d->history && d->ticks > d->history_last_tick) {
		if (d->machine)
			machine_stats_read(&d->cfg->k, d->machine);
		write_batch(d);
	}
	history_close(d->history);
	d->history = NULL;
	free(d->machine);
	d->machine = NULL;
}
