/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The global safety settings of the act stage ([enforce] in taod.conf),
 * part of the configuration (daemon/config/act_settings.c): config.h embeds
 * them without pulling in the act stage.
 */
#ifndef TAOD_ACT_SETTINGS_H
#define TAOD_ACT_SETTINGS_H

#include <limits.h>
#include <stdint.h>

enum act_mode { ACT_MODE_OBSERVE, ACT_MODE_ENFORCE };
enum act_backend_choice { BACKEND_AUTO, BACKEND_TAO, BACKEND_STOCK, BACKEND_DRY_RUN };

struct act_settings {
	enum act_mode mode;		   /* observe: every request ends as dry-run */
	enum act_backend_choice backend;   /* auto: TAO when the kernel is TAO */
	uint64_t actions_per_minute;	   /* token bucket over all kinds but warn */
	uint64_t shatter_bytes_per_minute; /* shatter + collapse bytes */
	char allowlist[1024];		   /* cgroup globs, space separated */
	uint64_t zone_min;		   /* bounds of each policy zone, bytes */
	uint64_t zone_max;
	uint64_t zone_headroom;	       /* bytes on top of the guaranteed demand */
	uint64_t free_floor;	       /* never take free memory below this */
	uint64_t zone_resize_every_ms; /* decide asks for a resize at most this often */
	char audit_log[PATH_MAX];      /* JSON lines; "" for none */
	int compact_after_shatter;     /* compact, drain per-CPU lists (machine-wide) */
	uint64_t compact_interval_ms;  /* ... under pressure, at most once per this */
	/* An action's benefit is read this long after it and at 5 times it; 0: not followed. */
	uint64_t benefit_after_ms;
	char zone_cmdline_dropin[PATH_MAX]; /* boot-zone TAO: `taoctl zones --apply` writes it */
	/* Stock restrict (memory_limit.h): off unless asked for. */
	int stock_restrict;		     /* lower memory.high / the v1 soft limit */
	uint64_t stock_restrict_percent;     /* of the cgroup's usage, 1..99 */
	uint64_t stock_restrict_for_ms;	     /* then put back */
	char stock_restrict_state[PATH_MAX]; /* the values put back, one file per cgroup */
};

void act_settings_defaults(struct act_settings *s);
const char *act_mode_name(enum act_mode m);

#endif
