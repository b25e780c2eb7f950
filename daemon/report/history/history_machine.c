// SPDX-License-Identifier: GPL-2.0
/*
 * A batch's machine-wide figures: every zone's size, free pages, free
 * blocks by order and (TAO) `order` line; the global mTHP stats and the
 * TAO vmstat counters, each a row only when its value changed or at a
 * keyframe, since most of them rarely move.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "history_internal.h"

static void format_blocks(const struct zone_stat *z, char *buf, size_t len)
{
	size_t off = 0;

	buf[0] = '\0';
	for (int i = 0; i < z->norders && off < len; i++)
		off += snprintf(buf + off, len - off, "%s%llu", i ? " " : "",
				(unsigned long long)z->free_blocks[i]);
}

static bool keyframe(const struct history *h)
{
	return h->machine_batches % MACHINE_KEYFRAME_BATCHES == 0;
}

static bool mthp_changed(const struct history *h, const struct machine_stats *m, size_t i)
{
	const struct mthp_stat *old = i < h->nmthp_last ? &h->mthp_last[i] : NULL;

	if (keyframe(h) || !old)
		return true;
	return old->size_kb != m->mthp[i].size_kb || strcmp(old->name, m->mthp[i].name) ||
	       old->value != m->mthp[i].value;
}

/* Only the counters this kernel has: a stock kernel writes no TAO row. */
static bool tao_changed(const struct history *h, const struct machine_stats *m, enum tao_vmstat i)
{
	if (!tao_vmstat_has(m, i))
		return false;
	return keyframe(h) || !(h->tao_last_present >> i & 1) || h->tao_last[i] != m->tao[i];
}

void history_machine_committed(struct history *h, const struct machine_stats *m)
{
	h->tao_last_present = m->tao_present;
	memcpy(h->tao_last, m->tao, sizeof(h->tao_last));
	if (!h->mthp_last)
		h->mthp_last = calloc(MACHINE_MAX_MTHP, sizeof(*h->mthp_last));
	if (!h->mthp_last)
		return;
	memcpy(h->mthp_last, m->mthp, m->nmthp * sizeof(*m->mthp));
	h->nmthp_last = m->nmthp;
	h->machine_batches++;
}

static int record_zone(struct history *h, const struct zone_stat *z, uint64_t wall_ms)
{
	sqlite3_stmt *st = hst(h, HS_INSERT_ZONE);
	char blocks[MACHINE_MAX_ORDERS * 21];

	format_blocks(z, blocks, sizeof(blocks));
	sqlite3_bind_int64(st, 1, (sqlite3_int64)wall_ms);
	sqlite3_bind_int(st, 2, z->node);
	sqlite3_bind_text(st, 3, z->name, -1, SQLITE_STATIC);
	sqlite3_bind_int64(st, 4, (sqlite3_int64)z->present_pages);
	sqlite3_bind_int64(st, 5, (sqlite3_int64)z->managed_pages);
	sqlite3_bind_int64(st, 6, (sqlite3_int64)z->free_pages);
	sqlite3_bind_text(st, 7, blocks, -1, SQLITE_TRANSIENT);
	if (z->order >= 0) /* else NULL: a stock zone has no order line */
		sqlite3_bind_int(st, 8, z->order);
	return hst_done(h, st);
}

static int record_mthp(struct history *h, const struct mthp_stat *s, uint64_t wall_ms)
{
	sqlite3_stmt *st = hst(h, HS_INSERT_MTHP);

	sqlite3_bind_int64(st, 1, (sqlite3_int64)wall_ms);
	sqlite3_bind_int(st, 2, (int)s->size_kb);
	sqlite3_bind_text(st, 3, s->name, -1, SQLITE_STATIC);
	sqlite3_bind_int64(st, 4, (sqlite3_int64)s->value);
	return hst_done(h, st);
}

static int record_tao(struct history *h, const struct machine_stats *m, enum tao_vmstat i,
		      uint64_t wall_ms)
{
	sqlite3_stmt *st = hst(h, HS_INSERT_TAO);

	sqlite3_bind_int64(st, 1, (sqlite3_int64)wall_ms);
	sqlite3_bind_text(st, 2, tao_vmstat_name(i), -1, SQLITE_STATIC);
	sqlite3_bind_int64(st, 3, (sqlite3_int64)m->tao[i]);
	return hst_done(h, st);
}

int history_record_machine(struct history *h, const struct machine_stats *m, uint64_t wall_ms)
{
	for (size_t i = 0; i < m->nzones; i++)
		if (record_zone(h, &m->zones[i], wall_ms))
			return -EIO;
	for (size_t i = 0; i < m->nmthp; i++)
		if (mthp_changed(h, m, i) && record_mthp(h, &m->mthp[i], wall_ms))
			return -EIO;
	for (int i = 0; i < TVM_MAX; i++)
		if (tao_changed(h, m, i) && record_tao(h, m, i, wall_ms))
			return -EIO;
	return 0;
}

int history_record_pressure(struct history *h, uint64_t wall_ms, const char *state, const char *why)
{
	sqlite3_stmt *st = hst(h, HS_INSERT_PRESSURE);

	sqlite3_bind_int64(st, 1, (sqlite3_int64)wall_ms);
	sqlite3_bind_text(st, 2, state, -1, SQLITE_STATIC);
	bind_text_or_null(st, 3, why && *why ? why : NULL);
	return hst_done(h, st);
}
