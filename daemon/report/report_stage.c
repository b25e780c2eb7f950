// SPDX-License-Identifier: GPL-2.0
/* The daemon's report stage: history batches and the metrics textfile. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "taod/clock.h"
#include "taod/log.h"
#include "taod/machine_stats.h"
#include "taod/report_stage.h"
#include "taod/version.h"

/* Retention runs every this many batches: deletes are cheap, not free. */
#define RETAIN_EVERY_BATCHES 30

void report_stage_open(struct report_stage *rs, const struct taod_config *cfg,
		       uint64_t start_wall_ms)
{
	char err[512] = "";
	int r;

	rs->machine = calloc(1, sizeof(*rs->machine));
	if (!cfg->history_path[0]) {
		log_info("history: off ([history] path is empty)");
		return;
	}
	r = history_open(&rs->history, cfg->history_path, err, sizeof(err));
	if (!r)
		r = history_begin_run(rs->history, start_wall_ms, taod_version());
	if (r) {
		log_warn("history: cannot use %s (%s); running without history", cfg->history_path,
			 err[0] ? err : strerror(-r));
		history_close(rs->history);
		rs->history = NULL;
		return;
	}
	history_retain(rs->history, realtime_ms(), cfg->history_retention_ms,
		       cfg->history_max_bytes);
	log_info("history: %s, a batch every %llu ticks", cfg->history_path,
		 (unsigned long long)cfg->history_every);
}

/* The actor's record hook: every action, done or suppressed, is history. */
void report_stage_record_action(void *ctx, const struct action_record *rec)
{
	struct report_stage *rs = ctx;

	if (rs->history && history_record_action(rs->history, rec))
		log_warn("history: action %llu not recorded", (unsigned long long)rec->id);
}

static void write_batch(struct report_stage *rs, const struct report_tick *t)
{
	uint64_t now = realtime_ms();

	if (history_record(rs->history, t->cgroups, now, rs->machine, t->class_of, t->class_ctx)) {
		log_warn("history: batch at tick %llu not written", (unsigned long long)t->ticks);
		return;
	}
	rs->last_tick = t->ticks;
	if (++rs->batches % RETAIN_EVERY_BATCHES == 0)
		history_retain(rs->history, now, t->cfg->history_retention_ms,
			       t->cfg->history_max_bytes);
}

void report_stage_tick(struct report_stage *rs, struct report_tick *t)
{
	bool batch = rs->history && t->ticks - rs->last_tick >= t->cfg->history_every;
	const char *textfile = t->cfg->metrics_textfile;
	int r;

	if ((batch || textfile[0]) && rs->machine)
		machine_stats_read(&t->cfg->k, rs->machine);
	if (batch)
		write_batch(rs, t);
	if (!textfile[0])
		return;
	t->metrics.machine = rs->machine;
	t->metrics.history_enabled = rs->history != NULL;
	r = metrics_textfile_write(textfile, &t->metrics);
	/* Once per new error, not every tick: anyone who can write the
	 * directory could otherwise flood the journal. */
	if (r && r != rs->textfile_err)
		log_warn("metrics textfile %s: %s (said again only if it changes)", textfile,
			 strerror(-r));
	else if (!r && rs->textfile_err)
		log_info("metrics textfile %s: written again", textfile);
	rs->textfile_err = r;
}

void report_stage_close(struct report_stage *rs, struct report_tick *t)
{
	if (rs->history && t->ticks > rs->last_tick) {
		if (rs->machine)
			machine_stats_read(&t->cfg->k, rs->machine);
		write_batch(rs, t);
	}
	history_close(rs->history);
	rs->history = NULL;
	free(rs->machine);
	rs->machine = NULL;
}
