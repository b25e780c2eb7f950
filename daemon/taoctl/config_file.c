// SPDX-License-Identifier: GPL-2.0
#include "config_file.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>

#include "client.h"
#include "config/config.h"

int taoctl_read_config(const char *path, struct taod_config **out)
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
		config_errors_print(errs);
		rc = EXIT_USAGE;
	}
	if (!rc) {
		*out = cfg;
		cfg = NULL;
	}
	free(cfg);
	free(errs);
	return rc;
}
