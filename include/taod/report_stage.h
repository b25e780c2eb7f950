/* SPDX-License-Identifier: GPL-2.0 */
/* The report stage's part of a tick (daemon/report/report_stage.c). */
#ifndef TAOD_REPORT_STAGE_H
#define TAOD_REPORT_STAGE_H

struct taod;

/*
 * The report stage after accounting (daemon/report/report_stage.c): a
 * history batch every [history] every ticks, the metrics textfile every
 * tick. Open warns and goes on without history when the database is
 * unusable; close writes a last batch.
 */
void report_stage_open(struct taod *d);
void report_stage_tick(struct taod *d);
void report_stage_close(struct taod *d);
/* actor_record_fn: records an audited action in the history (@ctx: taod). */
struct action_record;
void report_stage_record_action(void *ctx, const struct action_record *rec);

#endif
