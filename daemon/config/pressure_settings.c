// SPDX-License-Identifier: GPL-2.0
/* Defaults of [pressure]: the input table's thresholds. */
#include "pressure_settings.h"

void pressure_settings_defaults(struct pressure_settings *s)
{
	for (int i = 0; i < PIN_MAX; i++) {
		s->some[i] = pressure_input_row(i)->some;
		s->full[i] = pressure_input_row(i)->full;
	}
	s->hold_ms = 30000;
	s->wanting_fallbacks = 1;
	s->reward_free_blocks = 8;
}
