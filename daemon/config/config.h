/* SPDX-License-Identifier: GPL-2.0 */
/* taod.conf: the daemon's settings and the kernel paths it uses. */
#ifndef TAOD_CONFIG_H
#define TAOD_CONFIG_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "act_settings.h"
#include "pressure_settings.h"
#include "policy.h"

/* In the Makefile's SYSCONFDIR, where make install puts it. */
#define TAOD_DEFAULT_CONFIG TAOD_SYSCONFDIR "/taod.conf"
#define TAOD_NAME_MAX	    64

enum tao_detect { TAO_AUTO, TAO_YES, TAO_NO };
/* memcg: the memcg counters (and fentry on the split functions), never the
 * THP paths; what the kernel lab uses to keep testing that path. */
enum attach_mode { ATTACH_AUTO, ATTACH_FENTRY, ATTACH_TRACEPOINT, ATTACH_MEMCG };
enum readers_mode { READERS_ALL, READERS_ROOT };

/* Where the kernel keeps what taod reads and writes ([kernel] section). */
struct kernel_paths {
	char btf[PATH_MAX];
	char cgroup_root[PATH_MAX]; /* "auto": found in /proc/self/mounts */
	char mounts[PATH_MAX];
	char zoneinfo[PATH_MAX];
	char buddyinfo[PATH_MAX];
	char vmstat[PATH_MAX];
	char pressure_memory[PATH_MAX]; /* memory PSI */
	char cmdline[PATH_MAX];
	char thp_sysfs[PATH_MAX];
	char memory_blocks[PATH_MAX];
	char split_huge_pages[PATH_MAX];
	char compact_memory[PATH_MAX];
	char percpu_pagelist_high_fraction[PATH_MAX];
	char tracefs[PATH_MAX];
	char debugfs[PATH_MAX];
	/* memory.stat keys */
	char memstat_v2_anon[TAOD_NAME_MAX];
	char memstat_v2_thp[TAOD_NAME_MAX];
	char memstat_v1_anon[TAOD_NAME_MAX];
	char memstat_v1_thp[TAOD_NAME_MAX];
	/* TAO kernel files and value names */
	char memcg_thp_shatter[TAOD_NAME_MAX];
	char memcg_thp_zones[TAOD_NAME_MAX];
	char zone_nosplit[TAOD_NAME_MAX];
	char zone_nomerge[TAOD_NAME_MAX];
	char state_online_nosplit[TAOD_NAME_MAX];
	char state_online_nomerge[TAOD_NAME_MAX];
	char state_online_movable[TAOD_NAME_MAX];
	char state_offline[TAOD_NAME_MAX];
};

struct taod_config {
	char path[PATH_MAX]; /* main file it was read from */
	/* [daemon] */
	uint64_t tick_ms;
	char root[PATH_MAX];
	int log_level;
	/* [control] */
	char socket_path[PATH_MAX];
	unsigned socket_mode;
	char group[TAOD_NAME_MAX]; /* readers who see every tenant's rows */
	enum readers_mode readers;
	uint64_t reply_memory; /* replies held for other users' clients, bytes */
	/* [kernel] */
	enum tao_detect tao;
	enum attach_mode attach;
	uint64_t unmap_pair_window_ms; /* a THPS drop unpaired this long is a split */
	int cgroup_version;	       /* 0 auto, 1, 2 */
	uint64_t cgroup_map_entries;   /* cgroups the BPF counter maps hold */
	struct kernel_paths k;
	/* [history] */
	uint64_t sample_keep; /* samples of per-cgroup history kept in memory */
	/* [enforce] */
	struct act_settings enforce;
	/* [pressure] */
	struct pressure_settings pressure;
	/* [policy NAME] sections, [0] the default */
	struct policy_set policies;
	char history_path[PATH_MAX]; /* SQLite database; empty: no history */
	uint64_t history_every;	     /* record every N ticks */
	uint64_t history_retention_ms;
	uint64_t history_max_bytes;
	/* [metrics] */
	char metrics_textfile[PATH_MAX]; /* node_exporter textfile; empty: off */
};

#define TAOD_DEFAULT_HISTORY "/var/lib/taod/history.db"

/* One diagnostic: file:line: message. */
struct config_error {
	char file[PATH_MAX];
	int line;
	char msg[256];
};

struct config_errors {
	struct config_error items[32];
	int count; /* stored */
	int total; /* seen, may exceed what is stored */
};

/* Where taod listens and taoctl connects unless told otherwise. */
#define TAOD_DEFAULT_SOCKET "/run/taod/taod.sock"

void config_defaults(struct taod_config *cfg);
/*
 * Read @path, then every *.conf in @dropin_dir (sorted; NULL or missing
 * dir: none). Returns 0, or the number of errors recorded in @errs.
 */
int config_load(struct taod_config *cfg, const char *path, const char *dropin_dir,
		struct config_errors *errs);
void config_errors_print(const struct config_errors *errs);
const char *tao_detect_name(enum tao_detect t);
const char *attach_mode_name(enum attach_mode a);
/* "file:line: message" (or "file: message" without a line). */
void config_error_format(const struct config_error *e, char *buf, size_t len);
/*
 * Copies setting [@section] @key from @from into @to; true when the two
 * held different values (false too for a key that does not exist).
 */
bool config_keep_setting(struct taod_config *to, const struct taod_config *from,
			 const char *section, const char *key);

/* Settings a reload read but only a restart applies: "[section] key" each. */
struct config_restart {
	const char *keys[16];
	int n;
};

/*
 * Loads @path and its drop-ins into a new configuration. On success frees
 * *@cur, stores the new one (keeping the running values of the settings
 * only a restart changes, which it lists in @restart when not NULL) and
 * returns 0; on errors leaves *@cur as it was and returns the number of
 * errors in @errs.
 */
int config_reload(struct taod_config **cur, const char *path, const char *dropin_dir,
		  struct config_errors *errs, struct config_restart *restart);

#endif
