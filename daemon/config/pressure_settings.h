/* SPDX-License-Identifier: GPL-2.0 */
/*
 * [pressure] in taod.conf: the thresholds of the contiguity-pressure
 * signal's inputs (common/pressure_inputs.h), how long a state holds, and
 * the figures that say a tenant wants THPs and that a reward can work.
 * Defined in pressure_settings.c.
 */
#ifndef TAOD_PRESSURE_SETTINGS_H
#define TAOD_PRESSURE_SETTINGS_H

#include <stdint.h>

#include "common/pressure_inputs.h"

struct pressure_settings {
	uint64_t some[PIN_MAX], full[PIN_MAX]; /* thresholds entering each level; 0: never */
	uint64_t hold_ms;		       /* a state is left after this long calm */
	uint64_t wanting_fallbacks;	       /* THP fault fallbacks in a window: wanting */
	uint64_t wanting_psi;	     /* v2 memory.pressure some avg10 (%): wanting; 0 off */
	uint64_t reward_free_blocks; /* collapse only above this many free PMD blocks */
};

/* The built-in values: the table's thresholds, hold 30 s. */
void pressure_settings_defaults(struct pressure_settings *s);

#endif
