/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Contiguity pressure: is anyone short of free huge-page-sized blocks?
 * A pure state machine over readings of what the kernel already counts
 * (the inputs of common/pressure_inputs.h, read by pressure_read.c): the
 * machine's state none / some / full, entered as soon as one input passes
 * its threshold, left only after every input has stayed on the calm side
 * of its leave threshold for [pressure] hold; and per place (a NUMA node,
 * or a TAO policy zone of one) the same over its free PMD-order blocks.
 * Defined in contiguity_pressure.c.
 */
#ifndef TAOD_CONTIGUITY_PRESSURE_H
#define TAOD_CONTIGUITY_PRESSURE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/pressure_inputs.h"
#include "config/pressure_settings.h"

#define PRESSURE_MAX_PLACES 16
#define PRESSURE_PLACE_NAME 48
/* Rates are taken against a reading at least this old. */
#define PRESSURE_RATE_MS 5000

/* One reading of the sources: the rate inputs' counters are cumulative,
 * the others (free blocks, PSI) the value itself. */
struct pressure_reading {
	uint64_t t_ms;
	unsigned present; /* bit per input its source gave */
	double value[PIN_MAX];
	size_t nplaces;
	struct {
		char name[PRESSURE_PLACE_NAME]; /* "node0", "node0/NoSplit" */
		uint64_t free_pmd_blocks;
	} places[PRESSURE_MAX_PLACES];
};

/* Hysteresis of one state. */
struct pressure_hyst {
	enum pressure_level state;
	uint64_t since_ms; /* in this state since */
	uint64_t calm_ms;  /* every input calm since; 0: not calm */
};

struct pressure_place {
	char name[PRESSURE_PLACE_NAME];
	uint64_t free_pmd_blocks;
	struct pressure_hyst h;
};

struct pressure_state {
	struct pressure_hyst machine;
	unsigned present;		    /* bit per input read at the last step */
	double value[PIN_MAX];		    /* rates (per s) or values */
	enum pressure_level level[PIN_MAX]; /* what each input alone enters */
	unsigned why;			    /* bit per input holding the state up */
	struct pressure_reading base;	    /* rates are taken against it */
	bool have_base;
	size_t nplaces;
	struct pressure_place places[PRESSURE_MAX_PLACES];
	uint64_t steps;
	/*
	 * The last step that showed the machine short of contiguity (0:
	 * none yet): a THP fault fallback not at a cgroup's own limit, a
	 * collapse that found no THP to allocate, or a state above none. A
	 * tenant's own fallbacks make it wanting only near such a step.
	 */
	uint64_t short_ms;
};

void pressure_state_init(struct pressure_state *s);
/* Takes one reading (its t_ms must not go back) and moves the states. */
void pressure_step(struct pressure_state *s, const struct pressure_reading *r,
		   const struct pressure_settings *cfg);
/* True when input @i counts events (its value is a rate). */
bool pressure_input_is_rate(enum pressure_input i);
/* The level @v alone enters for input @i under @cfg. */
enum pressure_level pressure_input_level(const struct pressure_settings *cfg, enum pressure_input i,
					 double v);
/* "free_pmd_blocks=3 (< 64), psi_some=12.0 (>= 10)": what holds the state
 * up, or "" under none; never more than @len bytes. */
void pressure_why_text(const struct pressure_state *s, const struct pressure_settings *cfg,
		       char *buf, size_t len);

#endif
