// SPDX-License-Identifier: GPL-2.0
/*
 * Workload names: a tenant names its cgroups, so any path (any bytes, any
 * length) parses without a crash into fields that are terminated, fit, and
 * hold only their convention's bytes (what the metrics labels rely on).
 */
#include <stdlib.h>
#include <string.h>

#include "input.h"
#include "common/workload_name.h"

static void check_field(const char *f, const char *allowed)
{
	size_t n = strnlen(f, WORKLOAD_FIELD_MAX);

	if (n == WORKLOAD_FIELD_MAX || strspn(f, allowed) != n)
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char unit[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
				   "0123456789:_.@-\\";
	struct workload_name w;
	char *path = malloc(size + 1), label[64];
	int n;

	if (!path)
		return 0;
	memcpy(path, data, size);
	path[size] = '\0';
	n = workload_name_parse(path, &w);
	if (n != !!w.unit[0] + !!w.container[0] + !!w.pod[0])
		abort();
	check_field(w.unit, unit);
	check_field(w.container, "0123456789abcdef");
	check_field(w.pod, "0123456789abcdef-");
	workload_name_label(&w, label, sizeof(label));
	free(path);
	return 0;
}
