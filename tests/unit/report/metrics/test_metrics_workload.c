// SPDX-License-Identifier: GPL-2.0
/* taod_cgroup_workload_info: one sample per cgroup whose path names a workload. */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "report/metrics/metrics.h"

#define ID64 "3f2a9c0d1e4b5a6978877665544332211009f8e7d6c5b4a39281706f5e4d3c2b"

static char *exposition(const char *const *paths, size_t n)
{
	struct cgroup_table t;
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	cgroup_table_init(&t, n);
	for (size_t i = 0; i < n; i++)
		cgroup_table_touch(&t, i + 1, paths[i], 0, 1);
	metrics_write_workloads(f, &t);
	fclose(f);
	cgroup_table_free(&t);
	return buf;
}

Test(metrics_write_workloads, info_per_named_cgroup)
{
	const char *paths[] = {
	    "/system.slice/docker-" ID64 ".scope",
	    "/kubepods/burstable/pod0b2c5f7e-1d3a-4c8e-9f00-6a7b8c9d0e1f",
	    "/tenants/plain",
	    "/system.slice/getty@tty\\x2d1.service",
	};
	char *text = exposition(paths, 4);

	cr_assert(strstr(text, "# TYPE taod_cgroup_workload_info gauge\n"), "%s", text);
	cr_assert(strstr(text, "taod_cgroup_workload_info{cgroup=\"/system.slice/docker-" ID64
			       ".scope\",unit=\"docker-" ID64 ".scope\",container=\"" ID64
			       "\",pod=\"\"} 1\n"),
		  "%s", text);
	cr_assert(strstr(text, "taod_cgroup_workload_info{cgroup=\"/kubepods/burstable/"
			       "pod0b2c5f7e-1d3a-4c8e-9f00-6a7b8c9d0e1f\",unit=\"\",container=\"\","
			       "pod=\"0b2c5f7e-1d3a-4c8e-9f00-6a7b8c9d0e1f\"} 1\n"),
		  "%s", text);
	/* systemd's escape's backslash is escaped, as the format wants. */
	cr_assert(strstr(text, "unit=\"getty@tty\\\\x2d1.service\""), "%s", text);
	/* A path that names nothing has no sample. */
	cr_assert_null(strstr(text, "/tenants/plain"), "%s", text);
	free(text);
}
