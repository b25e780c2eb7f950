// SPDX-License-Identifier: GPL-2.0
#include "config_file.h"

#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "client.h"
#include "config/config.h"

/* A section given twice in a file leaves which of its keys won unclear. */
const char *const taoctl_needs_socket[] = {"[control] socket ", "[control] appears", NULL};
const char *const taoctl_needs_history[] = {"[history] path ", "[history] appears", "[policy",
					    NULL};

/*
 * Whether @e leaves a setting of @needs unknown: it names one, or it names
 * no setting at all (the file unread, a line that is no key = value).
 */
static bool error_matters(const struct config_error *e, const char *const *needs)
{
	if (e->msg[0] != '[' && strncmp(e->msg, "unknown section [", 17))
		return true;
	for (; *needs; needs++)
		if (!strncmp(e->msg, *needs, strlen(*needs)))
			return true;
	return false;
}

/* EXIT_USAGE after printing every error, or EXIT_OK after printing them as warnings. */
static int judge_errors(const struct config_errors *errs, const char *const *needs)
{
	bool matters = errs->total > errs->count; /* unseen ones may matter */
	char line[PATH_MAX + 300];

	for (int i = 0; i < errs->count; i++)
		matters |= error_matters(&errs->items[i], needs);
	if (matters) {
		config_errors_print(errs);
		return EXIT_USAGE;
	}
	fprintf(stderr, "taoctl: warning: the configuration has errors (taod would refuse it) in "
			"settings taoctl does not use:\n");
	for (int i = 0; i < errs->count; i++) {
		config_error_format(&errs->items[i], line, sizeof(line));
		fprintf(stderr, "  %s\n", line);
	}
	return EXIT_OK;
}

int taoctl_read_config(const char *path, const char *const *needs, struct taod_config **out)
{
	struct config_errors *errs = calloc(1, sizeof(*errs));
	struct taod_config *cfg = calloc(1, sizeof(*cfg));
	char dropins[PATH_MAX];
	int rc = EXIT_OK;

	*out = NULL;
	if (!cfg || !errs) {
		fprintf(stderr, "taoctl: out of memory reading %s\n", path);
		rc = EXIT_FAILED;
	} else if (snprintf(dropins, sizeof(dropins), "%s.d", path) >= (int)sizeof(dropins)) {
		fprintf(stderr, "taoctl: %s: path too long\n", path);
		rc = EXIT_USAGE;
	} else if (config_load(cfg, path, dropins, errs)) {
		rc = judge_errors(errs, needs);
	}
	if (!rc) {
		*out = cfg;
		cfg = NULL;
	}
	free(cfg);
	free(errs);
	return rc;
}
