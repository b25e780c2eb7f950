// SPDX-License-Identifier: GPL-2.0
/*
 * The contiguity-pressure state machine. An input enters a level when its
 * value passes that level's threshold (below it for free blocks, at or
 * above it for rates and PSI) and holds the level while it stays past the
 * leave threshold: half the entering one, twice it for free blocks, so a
 * value wobbling around a threshold does not flap. The state rises at
 * once; it falls to the highest level any input still holds only after
 * none held the current one for cfg->hold_ms.
 */
#include <stdio.h>
#include <string.h>

#include "contiguity_pressure.h"

void pressure_state_init(struct pressure_state *s)
{
	memset(s, 0, sizeof(*s));
}

bool pressure_input_is_rate(enum pressure_input i)
{
	const struct pressure_input_row *row = pressure_input_row(i);

	return row && !strcmp(row->unit, "/s");
}

static uint64_t threshold(const struct pressure_settings *cfg, enum pressure_input i,
			  enum pressure_level l)
{
	return l == PRESSURE_FULL ? cfg->full[i] : l == PRESSURE_SOME ? cfg->some[i] : 0;
}

/* @v is past threshold @t: as entered, or (@leaving) as still held. */
static bool past(bool low_bad, double v, uint64_t t, bool leaving)
{
	if (!t)
		return false;
	if (low_bad)
		return v < (double)t * (leaving ? 2.0 : 1.0);
	return v >= (double)t * (leaving ? 0.5 : 1.0);
}

static enum pressure_level level_of(const struct pressure_settings *cfg, enum pressure_input i,
				    double v, bool leaving)
{
	bool low = pressure_input_row(i)->low_bad;

	if (past(low, v, threshold(cfg, i, PRESSURE_FULL), leaving))
		return PRESSURE_FULL;
	return past(low, v, threshold(cfg, i, PRESSURE_SOME), leaving) ? PRESSURE_SOME
								       : PRESSURE_NONE;
}

enum pressure_level pressure_input_level(const struct pressure_settings *cfg, enum pressure_input i,
					 double v)
{
	return level_of(cfg, i, v, false);
}

/* Rises to @enter at once; falls to @hold after @hold_ms calm. */
static void hyst_step(struct pressure_hyst *h, enum pressure_level enter, enum pressure_level hold,
		      uint64_t now, uint64_t hold_ms)
{
	if (enter > h->state) {
		*h = (struct pressure_hyst){.state = enter, .since_ms = now};
		return;
	}
	if (hold >= h->state) {
		h->calm_ms = 0;
		return;
	}
	if (!h->calm_ms)
		h->calm_ms = now ? now : 1;
	if (now - h->calm_ms >= hold_ms)
		*h = (struct pressure_hyst){.state = hold, .since_ms = now};
}

/* Rates against the base; the base moves on once it is old enough. */
static void take_values(struct pressure_state *s, const struct pressure_reading *r)
{
	uint64_t span = s->have_base && r->t_ms > s->base.t_ms ? r->t_ms - s->base.t_ms : 0;

	s->present = r->present;
	for (int i = 0; i < PIN_MAX; i++) {
		double then = s->base.value[i], now = r->value[i];

		if (!pressure_input_is_rate(i))
			s->value[i] = now;
		else if (span && (s->base.present & (1u << i)) && now >= then)
			s->value[i] = (now - then) * 1000.0 / (double)span;
		else
			s->value[i] = 0; /* first reading, or a counter that went back */
	}
	if (!s->have_base || span >= PRESSURE_RATE_MS) {
		s->base = *r;
		s->have_base = true;
	}
}

static struct pressure_place *place_get(struct pressure_state *s, const char *name)
{
	for (size_t i = 0; i < s->nplaces; i++)
		if (!strcmp(s->places[i].name, name))
			return &s->places[i];
	if (s->nplaces == PRESSURE_MAX_PLACES)
		return NULL;
	memset(&s->places[s->nplaces], 0, sizeof(s->places[0]));
	snprintf(s->places[s->nplaces].name, PRESSURE_PLACE_NAME, "%s", name);
	return &s->places[s->nplaces++];
}

static void step_places(struct pressure_state *s, const struct pressure_reading *r,
			const struct pressure_settings *cfg)
{
	for (size_t i = 0; i < r->nplaces && i < PRESSURE_MAX_PLACES; i++) {
		struct pressure_place *p = place_get(s, r->places[i].name);
		double v = (double)r->places[i].free_pmd_blocks;

		if (!p)
			continue;
		p->free_pmd_blocks = r->places[i].free_pmd_blocks;
		hyst_step(&p->h, level_of(cfg, PIN_FREE_PMD_BLOCKS, v, false),
			  level_of(cfg, PIN_FREE_PMD_BLOCKS, v, true), r->t_ms, cfg->hold_ms);
	}
}

/* Fallbacks for want of a block, failed collapse allocations, or a level. */
static bool machine_short(const struct pressure_state *s)
{
	static const enum pressure_input failures[] = {
	    PIN_THP_FAULT_FALLBACK, PIN_MTHP_FAULT_FALLBACK, PIN_COLLAPSE_FAILED};

	for (size_t i = 0; i < sizeof(failures) / sizeof(failures[0]); i++)
		if ((s->present & (1u << failures[i])) && s->value[failures[i]] > 0)
			return true;
	return s->machine.state != PRESSURE_NONE;
}

void pressure_step(struct pressure_state *s, const struct pressure_reading *r,
		   const struct pressure_settings *cfg)
{
	enum pressure_level enter = PRESSURE_NONE, hold = PRESSURE_NONE;

	if (!s->steps)
		s->machine.since_ms = r->t_ms; /* none since the first reading */
	take_values(s, r);
	s->why = 0;
	for (int i = 0; i < PIN_MAX; i++) {
		enum pressure_level e = PRESSURE_NONE, h = PRESSURE_NONE;

		if (s->present & (1u << i)) {
			e = level_of(cfg, i, s->value[i], false);
			h = level_of(cfg, i, s->value[i], true);
		}
		s->level[i] = e;
		enter = e > enter ? e : enter;
		hold = h > hold ? h : hold;
	}
	hyst_step(&s->machine, enter, hold, r->t_ms, cfg->hold_ms);
	if (machine_short(s))
		s->short_ms = r->t_ms ? r->t_ms : 1;
	for (int i = 0; i < PIN_MAX; i++)
		if ((s->present & (1u << i)) && s->machine.state &&
		    level_of(cfg, i, s->value[i], true) >= s->machine.state)
			s->why |= 1u << i;
	step_places(s, r, cfg);
	s->steps++;
}

void pressure_why_text(const struct pressure_state *s, const struct pressure_settings *cfg,
		       char *buf, size_t len)
{
	size_t n = 0;

	buf[0] = '\0';
	for (int i = 0; i < PIN_MAX && n < len; i++) {
		const struct pressure_input_row *row = pressure_input_row(i);
		uint64_t t = threshold(cfg, i, s->machine.state);

		if (!(s->why & (1u << i)))
			continue;
		n += (size_t)snprintf(buf + n, len - n, "%s%s=%.1f%s (%s %llu)", n ? ", " : "",
				      row->name, s->value[i], row->unit[0] == 'b' ? "" : row->unit,
				      row->low_bad ? "<" : ">=", (unsigned long long)t);
	}
}
