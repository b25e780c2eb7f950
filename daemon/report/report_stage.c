// SPDX-License-Identifier: GPL-2.0
/* The daemon's report stage: history batches and the metrics textfile. */
#include <assert.h>
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "common/clock.h"
#include "common/log.h"
#include "account/machine_stats.h"
#include "report_stage.h"
#include "common/version.h"

/* Retention runs every this many batches: deletes are cheap, not free. */
#define RETAIN_EVERY_BATCHES 30
/* A batch is written until the tick has run this long (at least
 * HISTORY_SLICE_MIN cgroups a tick): cgroups cost ~8 us each (measured at
 * 10,000, new ones included), so a steady 10,000 take 3 ticks of 10 and
 * most ticks carry none, and a tick that walked and dropped thousands of
 * directories first writes little. */
#define TICK_WITH_HISTORY_US 40000

void report_stage_open(struct report_stage *rs, const struct taod_config *cfg,
		       uint64_t start_wall_ms)
{
	struct history *h;

	rs->opened = true;
	rs->machine = calloc(1, sizeof(*rs->machine));
	sink_set_on(&rs->textfile, cfg->metrics_textfile[0]);
	history_sink_open(&rs->history, cfg->history_path, start_wall_ms);
	h = rs->history.h;
	if (!h)
		return;
	history_retain(h, realtime_ms(), cfg->history_retention_ms, cfg->history_max_bytes);
	log_info("history: %s, a batch every %llu ticks", cfg->history_path,
		 (unsigned long long)cfg->history_every);
}

/* The actor's record hook: every action, done or suppressed, is history. */
void report_stage_record_action(void *ctx, const struct action_record *rec)
{
	struct report_stage *rs = ctx;
	struct history *h = history_sink_get(&rs->history, 1);

	if (h)
		history_sink_wrote(&rs->history, history_record_action(h, rec), 1, "action");
}

/* An action the history lacks (written while it was down) has no row to
 * follow up: not a failed write. */
void report_stage_record_benefit(void *ctx, const struct action_benefit *b)
{
	struct report_stage *rs = ctx;
	struct history *h = history_sink_get(&rs->history, 1);
	int r;

	if (!h)
		return;
	r = history_record_benefit(h, b);
	history_sink_wrote(&rs->history, r == -ENOENT ? 0 : r, 1, "benefit");
}

/* The machine's contiguity-pressure state, beside the batch. */
static int record_pressure(struct history *h, const struct report_tick *t, uint64_t now)
{
	char why[512];

	pressure_why_text(t->metrics.pressure, &t->cfg->pressure, why, sizeof(why));
	return history_record_pressure(
	    h, now, pressure_level_name(t->metrics.pressure->machine.state), why);
}

/* A slice of the batch due or open; @whole: all that is left of it. */
static void write_batch(struct report_stage *rs, const struct report_tick *t, bool whole)
{
	struct history *h = history_sink_get(&rs->history, 1);
	uint64_t now = realtime_ms();

	/* Due and done, written or not: a lost batch is counted, not retried every tick. */
	if (!rs->batch_open)
		rs->last_tick = t->ticks;
	rs->batch_open = false;
	if (!h)
		return;
	struct history_slice sl = {.max = SIZE_MAX,
				   .until_us = whole ? 0 : t->started_us + TICK_WITH_HISTORY_US};
	int r;

	r = history_record_slice(h, t->cgroups, now, rs->machine, t->class_of, t->class_ctx, &sl);
	rs->batch_open = r == HISTORY_MORE;
	if (rs->batch_open)
		return;
	if (!r && t->metrics.pressure)
		r = record_pressure(h, t, now);
	history_sink_wrote(&rs->history, r, 1, "batch");
	if (!r && ++rs->batches % RETAIN_EVERY_BATCHES == 0)
		history_retain(h, now, t->cfg->history_retention_ms, t->cfg->history_max_bytes);
}

const struct sink_health *report_stage_sink(const struct report_stage *rs, enum sink_id id)
{
	if (id == SINK_HISTORY)
		return &rs->history.health;
	return id == SINK_TEXTFILE ? &rs->textfile : NULL;
}

bool report_stage_history_up(const struct report_stage *rs)
{
	return rs->history.h && rs->history.health.state == SINK_OK;
}

/* Once per new error, not every tick: anyone who can write the directory
 * could otherwise flood the journal. */
static void write_textfile(struct report_stage *rs, const char *textfile,
			   const struct metrics_input *in)
{
	int r = metrics_textfile_write(textfile, in);

	if (r && sink_failed(&rs->textfile, strerror(-r), 1))
		log_warn("metrics textfile %s: %s (said again only if it changes)", textfile,
			 strerror(-r));
	else if (!r && sink_succeeded(&rs->textfile))
		log_info("metrics textfile %s: written again", textfile);
}

void report_stage_tick(struct report_stage *rs, struct report_tick *t)
{
	assert(rs);
	assert(t);

	bool due = rs->history.path[0] && !rs->batch_open &&
		   t->ticks - rs->last_tick >= t->cfg->history_every;
	const char *textfile = t->cfg->metrics_textfile;

	if ((due || textfile[0]) && rs->machine)
		machine_stats_read(&t->cfg->k, rs->machine);
	if (due || rs->batch_open)
		write_batch(rs, t, false);
	sink_set_on(&rs->textfile, textfile[0]); /* a reload may set or clear it */
	if (!textfile[0])
		return;
	t->metrics.machine = rs->machine;
	t->metrics.history_enabled = report_stage_history_up(rs);
	write_textfile(rs, textfile, &t->metrics);
}

/* At a clean exit: a textfile left saying taod_up 1 would say so for ever. */
static void write_last_textfile(struct report_stage *rs, struct report_tick *t)
{
	const char *textfile = t->cfg->metrics_textfile;

	if (!rs->opened || !textfile[0])
		return;
	t->metrics.machine = rs->machine;
	t->metrics.history_enabled = false;
	t->metrics.down = true;
	write_textfile(rs, textfile, &t->metrics);
}

void report_stage_close(struct report_stage *rs, struct report_tick *t)
{
	if (rs->history.h && (rs->batch_open || t->ticks > rs->last_tick)) {
		if (rs->machine)
			machine_stats_read(&t->cfg->k, rs->machine);
		write_batch(rs, t, true);
	}
	history_sink_close(&rs->history);
	write_last_textfile(rs, t);
	free(rs->machine);
	rs->machine = NULL;
}
