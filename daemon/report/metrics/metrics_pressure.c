// SPDX-License-Identifier: GPL-2.0
#include "metrics_pressure.h"

#include "metrics.h"
#include "metrics_internal.h"

static void write_places(FILE *f, const struct pressure_state *s)
{
	char label[2 * PRESSURE_PLACE_NAME];

	if (!s->nplaces)
		return;
	metrics_family(f, "taod_contiguity_pressure_place", "gauge",
		       "Contiguity pressure of a NUMA node or TAO zone from its free PMD blocks: "
		       "0 none, 1 some, 2 full.");
	for (size_t i = 0; i < s->nplaces; i++) {
		prom_escape_label(s->places[i].name, label, sizeof(label));
		fprintf(f, "taod_contiguity_pressure_place{place=\"%s\"} %d\n", label,
			(int)s->places[i].h.state);
	}
}

void metrics_write_pressure(FILE *f, const struct pressure_state *s)
{
	metrics_family(f, "taod_contiguity_pressure", "gauge",
		       "Machine-wide contiguity pressure: 0 none, 1 some, 2 full.");
	fprintf(f, "taod_contiguity_pressure %d\n", (int)s->machine.state);
	write_places(f, s);
	for (int i = 0; i < PIN_MAX; i++) {
		const struct pressure_input_row *row = pressure_input_row(i);

		if (!(s->present & (1u << i)))
			continue;
		metrics_family(f, row->metric, "gauge", row->help);
		fprintf(f, "%s %.6g\n", row->metric, s->value[i]);
	}
}
