// SPDX-License-Identifier: GPL-2.0
#include "mthp_probe.h"

#include <dirent.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/rootfs.h"

bool mthp_mode_on(const char *enabled_text)
{
	return enabled_text[0] && !strstr(enabled_text, "[never]");
}

static unsigned long pmd_kib(const char *base)
{
	char path[PATH_MAX], text[64];

	snprintf(path, sizeof(path), "%s/hpage_pmd_size", base);
	if (read_file(path, text, sizeof(text)) <= 0)
		return 2048;
	return strtoul(text, NULL, 10) / 1024;
}

bool mthp_enabled(const char *thp_sysfs)
{
	char base[PATH_MAX], path[PATH_MAX + 300], text[128];
	unsigned long pmd, kib;
	struct dirent *de;
	bool on = false;
	DIR *d;

	if (rootfs_path(base, sizeof(base), thp_sysfs) || !(d = opendir(base)))
		return false;
	pmd = pmd_kib(base);
	while (!on && (de = readdir(d))) {
		if (sscanf(de->d_name, "hugepages-%lukB", &kib) != 1 || kib >= pmd)
			continue;
		snprintf(path, sizeof(path), "%s/%s/enabled", base, de->d_name);
		on = read_file(path, text, sizeof(text)) > 0 && mthp_mode_on(text);
	}
	closedir(d);
	return on;
}
