// SPDX-License-Identifier: GPL-2.0
/* The rows of TAOD_PRESSURE_INPUTS as a table. */
#include <stddef.h>

#include "pressure_inputs.h"

static const struct pressure_input_row rows[PIN_MAX] = {
#define X(id, name, source, low_bad, some, full, unit, metric, help)                               \
	[PIN_##id] = {name, source, low_bad, some, full, unit, metric, help},
    TAOD_PRESSURE_INPUTS(X)
#undef X
};

const struct pressure_input_row *pressure_input_row(enum pressure_input i)
{
	return (unsigned)i < PIN_MAX ? &rows[i] : NULL;
}

const char *pressure_level_name(enum pressure_level l)
{
	static const char *const names[] = {"none", "some", "full"};

	return (unsigned)l < sizeof(names) / sizeof(names[0]) ? names[l] : "?";
}
