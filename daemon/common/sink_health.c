// SPDX-License-Identifier: GPL-2.0
#include "sink_health.h"

#include <assert.h>
#include <stdio.h>
#include <string.h>

#include "clock.h"

const char *sink_name(enum sink_id id)
{
	static const char *const names[SINK_MAX] = {
	    [SINK_HISTORY] = "history", [SINK_AUDIT] = "audit", [SINK_TEXTFILE] = "textfile"};

	return id < SINK_MAX ? names[id] : "?";
}

const char *sink_state_name(enum sink_state s)
{
	return s == SINK_OK ? "ok" : s == SINK_FAILING ? "failing" : "off";
}

void sink_set_on(struct sink_health *h, bool on)
{
	assert(h);
	if (!on) {
		h->state = SINK_OFF;
		h->failing_since_ms = 0;
	} else if (h->state == SINK_OFF) {
		h->state = SINK_OK;
	}
}

bool sink_failed(struct sink_health *h, const char *why, uint64_t lost)
{
	assert(h);

	bool news = h->state != SINK_FAILING || strcmp(h->last_error, why ? why : "");

	if (h->state != SINK_FAILING)
		h->failing_since_ms = realtime_ms();
	h->state = SINK_FAILING;
	h->errors++;
	h->records_lost += lost;
	snprintf(h->last_error, sizeof(h->last_error), "%s", why ? why : "");
	return news;
}

bool sink_succeeded(struct sink_health *h)
{
	assert(h);

	bool was = h->state == SINK_FAILING;

	h->state = SINK_OK;
	h->failing_since_ms = 0;
	return was;
}
