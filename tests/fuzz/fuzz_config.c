// SPDX-License-Identifier: GPL-2.0
/* taod.conf: any file gives a configuration or file:line errors, never a crash. */
#include "input.h"
#include "config/config.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct taod_config cfg;
	struct config_errors errs;
	char path[64], line[512];

	if (fuzz_file(data, size, path))
		return 0;
	config_load(&cfg, path, NULL, &errs);
	for (int i = 0; i < errs.count; i++)
		config_error_format(&errs.items[i], line, sizeof(line));
	return 0;
}
