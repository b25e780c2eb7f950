// SPDX-License-Identifier: GPL-2.0
/*
 * Reloading: the new configuration is built completely aside and swapped
 * in with one pointer store, so a tick never sees half of it (policies
 * included); with errors the running one stays.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "taod/config.h"
#include "taod/log.h"

int config_reload(struct taod_config **cur, const char *path, const char *dropin_dir,
		  struct config_errors *errs)
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
	if (strcmp(cfg->root, old->root) || strcmp(cfg->socket_path, old->socket_path))
		log_warn("root and socket changes take effect at the next restart");
	snprintf(cfg->root, sizeof(cfg->root), "%s", old->root);
	snprintf(cfg->socket_path, sizeof(cfg->socket_path), "%s", old->socket_path);
	if (strcmp(cfg->history_path, old->history_path))
		log_warn("[history] path changes take effect at the next restart");
	snprintf(cfg->history_path, sizeof(cfg->history_path), "%s", old->history_path);
	*cur = cfg;
	free(old);
	log_set_max_level(cfg->log_level);
	log_info("configuration reloaded from %s (%u policies)", path, cfg->policies.n);
	return 0;
}
