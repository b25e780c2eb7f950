// SPDX-License-Identifier: GPL-2.0
/*
 * Reloading: the new configuration is built completely aside and swapped
 * in with one pointer store, so a tick never sees half of it (policies
 * included); with errors the running one stays.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"
#include "common/log.h"

/*
 * Read once at start: the socket is bound, the root, cgroup hierarchy and
 * BTF found, the BPF programs loaded and the backend and database opened.
 * A reload keeps their running values and says which changed.
 */
static const struct {
	const char *section, *key, *label;
} restart_only[] = {
    {"daemon", "root", "[daemon] root"},
    {"control", "socket", "[control] socket"},
    {"control", "socket_mode", "[control] socket_mode"},
    {"control", "group", "[control] group"},
    {"kernel", "tao", "[kernel] tao"},
    {"kernel", "attach", "[kernel] attach"},
    {"kernel", "unmap_pair_window", "[kernel] unmap_pair_window"},
    {"kernel", "cgroup_map_entries", "[kernel] cgroup_map_entries"},
    {"kernel", "cgroup_version", "[kernel] cgroup_version"},
    {"kernel", "btf", "[kernel] btf"},
    {"kernel", "cgroup_root", "[kernel] cgroup_root"},
    {"kernel", "mounts", "[kernel] mounts"},
    {"enforce", "backend", "[enforce] backend"},
    /* The restrictions saved under the running one are put back from it. */
    {"enforce", "stock_restrict_state", "[enforce] stock_restrict_state"},
    {"history", "path", "[history] path"},
};

_Static_assert(sizeof(restart_only) / sizeof(restart_only[0]) <=
		   sizeof(((struct config_restart *)0)->keys) / sizeof(const char *),
	       "config_restart holds every restart-only setting");

static void keep_running_values(struct taod_config *cfg, const struct taod_config *old,
				struct config_restart *restart)
{
	for (size_t i = 0; i < sizeof(restart_only) / sizeof(restart_only[0]); i++) {
		if (!config_keep_setting(cfg, old, restart_only[i].section, restart_only[i].key))
			continue;
		log_warn("%s changed: takes effect at the next restart", restart_only[i].label);
		if (restart)
			restart->keys[restart->n++] = restart_only[i].label;
	}
}

int config_reload(struct taod_config **cur, const char *path, const char *dropin_dir,
		  struct config_errors *errs, struct config_restart *restart)
{
	struct taod_config *cfg = calloc(1, sizeof(*cfg)), *old = *cur;
	int n;

	if (!cfg) {
		memset(errs, 0, sizeof(*errs));
		snprintf(errs->items[0].file, sizeof(errs->items[0].file), "%s", path);
		snprintf(errs->items[0].msg, sizeof(errs->items[0].msg), "out of memory");
		errs->count = errs->total = 1;
		return 1;
	}
	n = config_load(cfg, path, dropin_dir, errs);
	if (n) {
		free(cfg);
		return n;
	}
	keep_running_values(cfg, old, restart);
	*cur = cfg;
	free(old);
	log_set_max_level(cfg->log_level);
	log_info("configuration reloaded from %s (%u policies)", path, cfg->policies.n);
	return 0;
}
