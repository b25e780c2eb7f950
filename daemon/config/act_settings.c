// SPDX-License-Identifier: GPL-2.0
/* Defaults of [enforce], the act stage's safety settings: observe, modest budgets. */
#include <stdio.h>
#include <string.h>

#include "act_settings.h"

void act_settings_defaults(struct act_settings *s)
{
	memset(s, 0, sizeof(*s));
	s->mode = ACT_MODE_OBSERVE;
	s->backend = BACKEND_AUTO;
	s->actions_per_minute = 6;
	s->shatter_bytes_per_minute = 256ULL << 20;
	s->zone_min = 0;
	s->zone_max = 0; /* no bound but the memory there is */
	s->zone_headroom = 256ULL << 20;
	s->free_floor = 1ULL << 30;
	s->zone_resize_every_ms = 60000;
	s->compact_interval_ms = 60000;
	s->benefit_after_ms = 60000;
	snprintf(s->audit_log, sizeof(s->audit_log), "%s", "/var/lib/taod/audit.jsonl");
	/* Debian grub reads every .cfg in /etc/default/grub.d after /etc/default/grub. */
	snprintf(s->zone_cmdline_dropin, sizeof(s->zone_cmdline_dropin), "%s",
		 "/etc/default/grub.d/taod-zones.cfg");
	s->stock_restrict = 0;
	s->stock_restrict_percent = 90;
	s->stock_restrict_for_ms = 10 * 60 * 1000;
	snprintf(s->stock_restrict_state, sizeof(s->stock_restrict_state), "%s",
		 "/var/lib/taod/restricted");
}

const char *act_mode_name(enum act_mode m)
{
	return m == ACT_MODE_ENFORCE ? "enforce" : "observe";
}
