// SPDX-License-Identifier: GPL-2.0
#include "thp_settings.h"
#include "common/json_fields.h"

#include <dirent.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/rootfs.h"

void thp_selected(const char *text, char *out, size_t len)
{
	const char *open = strchr(text, '['), *close = open ? strchr(open, ']') : NULL;
	size_t n;

	if (open && close) {
		text = open + 1;
		n = (size_t)(close - text);
	} else {
		n = strcspn(text, "\n");
	}
	snprintf(out, len, "%.*s", (int)n, text);
}

/* One file's selected mode into @o as @key ("" when the kernel lacks it);
 * whether the file was there. */
static bool add_setting(struct json_object *o, const char *key, const char *base, const char *file)
{
	char path[PATH_MAX + 64], text[256], mode[64] = "";
	bool there;

	snprintf(path, sizeof(path), "%s/%s", base, file);
	there = read_file(path, text, sizeof(text)) > 0;
	if (there)
		thp_selected(text, mode, sizeof(mode));
	json_add_str(o, key, mode);
	return there;
}

static int by_size(const void *a, const void *b)
{
	unsigned long x = *(const unsigned long *)a, y = *(const unsigned long *)b;

	return x < y ? -1 : x > y;
}

/* Each hugepages-<N>kB directory's enabled, smallest first; a size with
 * no anonymous enabled (8kB: shmem only) is left out. */
static struct json_object *sizes_json(const char *base)
{
	struct json_object *list = json_object_new_array();
	unsigned long kib[64];
	size_t n = 0;
	struct dirent *de;
	DIR *d = opendir(base);

	while (d && n < sizeof(kib) / sizeof(*kib) && (de = readdir(d)))
		n += sscanf(de->d_name, "hugepages-%lukB", &kib[n]) == 1;
	if (d)
		closedir(d);
	qsort(kib, n, sizeof(*kib), by_size);
	for (size_t i = 0; i < n; i++) {
		struct json_object *o = json_object_new_object();
		char file[64];

		snprintf(file, sizeof(file), "hugepages-%lukB/enabled", kib[i]);
		json_add_u64(o, "size_kb", kib[i]);
		if (add_setting(o, "enabled", base, file))
			json_object_array_add(list, o);
		else
			json_object_put(o);
	}
	return list;
}

struct json_object *thp_settings_json(const char *thp_sysfs)
{
	struct json_object *o = json_object_new_object();
	char base[PATH_MAX];

	if (rootfs_path(base, sizeof(base), thp_sysfs))
		base[0] = '\0';
	add_setting(o, "enabled", base, "enabled");
	add_setting(o, "defrag", base, "defrag");
	add_setting(o, "khugepaged_defrag", base, "khugepaged/defrag");
	add_setting(o, "max_ptes_none", base, "khugepaged/max_ptes_none");
	json_add(o, "sizes", base[0] ? sizes_json(base) : json_object_new_array());
	return o;
}
