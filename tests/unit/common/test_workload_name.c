// SPDX-License-Identifier: GPL-2.0
/* Workload names from cgroup paths: one test per convention, then hostile names. */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "common/workload_name.h"

#define ID64 "3f2a9c0d1e4b5a6978877665544332211009f8e7d6c5b4a39281706f5e4d3c2b"
#define UID  "0b2c5f7e-1d3a-4c8e-9f00-6a7b8c9d0e1f"
#define UID_ "0b2c5f7e_1d3a_4c8e_9f00_6a7b8c9d0e1f"

static struct workload_name parse(const char *path, int fields)
{
	struct workload_name w;

	cr_assert_eq(workload_name_parse(path, &w), fields, "%s", path);
	return w;
}

static void expect(const char *path, const char *unit, const char *container, const char *pod)
{
	int n = !!*unit + !!*container + !!*pod;
	struct workload_name w = parse(path, n);

	cr_assert_str_eq(w.unit, unit, "%s", path);
	cr_assert_str_eq(w.container, container, "%s", path);
	cr_assert_str_eq(w.pod, pod, "%s", path);
}

Test(workload_name_parse, system_service)
{
	expect("/system.slice/nginx.service", "nginx.service", "", "");
	/* A delegated service's own children still belong to it. */
	expect("/system.slice/db.service/worker/a", "db.service", "", "");
}

Test(workload_name_parse, user_manager_and_its_scopes)
{
	expect("/user.slice/user-1000.slice/user@1000.service", "user@1000.service", "", "");
	expect("/user.slice/user-1000.slice/user@1000.service/app.slice/app-firefox-1234.scope",
	       "app-firefox-1234.scope", "", "");
	expect("/user.slice/user-1000.slice/session-3.scope", "session-3.scope", "", "");
	/* systemd's escapes are part of a unit name. */
	expect("/system.slice/system-getty.slice/getty@tty\\x2d1.service",
	       "getty@tty\\x2d1.service", "", "");
}

Test(workload_name_parse, innermost_slice_when_no_service)
{
	expect("/system.slice", "system.slice", "", "");
	expect("/user.slice/user-1000.slice", "user-1000.slice", "", "");
	expect("/user.slice/user-1000.slice/plain", "user-1000.slice", "", "");
}

Test(workload_name_parse, docker_scope)
{
	expect("/system.slice/docker-" ID64 ".scope", "docker-" ID64 ".scope", ID64, "");
}

Test(workload_name_parse, docker_cgroupfs_v1)
{
	expect("/docker/" ID64, "", ID64, "");
	/* Not a 64-digit id under /docker: no container. */
	parse("/docker/buildkit", 0);
}

Test(workload_name_parse, cri_containerd_scope)
{
	expect("/system.slice/cri-containerd-" ID64 ".scope", "cri-containerd-" ID64 ".scope", ID64,
	       "");
}

Test(workload_name_parse, crio_scope_not_conmon)
{
	expect("/machine.slice/crio-" ID64 ".scope", "crio-" ID64 ".scope", ID64, "");
	/* conmon's scope watches a container; it is not one. */
	expect("/machine.slice/crio-conmon-" ID64 ".scope", "crio-conmon-" ID64 ".scope", "", "");
}

Test(workload_name_parse, libpod_scope)
{
	expect("/user.slice/user-1000.slice/user@1000.service/user.slice/libpod-" ID64 ".scope",
	       "libpod-" ID64 ".scope", ID64, "");
	expect("/machine.slice/libpod-conmon-" ID64 ".scope", "libpod-conmon-" ID64 ".scope", "",
	       "");
}

Test(workload_name_parse, kubepods_systemd_driver)
{
	expect("/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod" UID_ ".slice",
	       "kubepods-burstable-pod" UID_ ".slice", "", UID);
	expect("/kubepods.slice/kubepods-besteffort.slice/kubepods-besteffort-pod" UID_
	       ".slice/cri-containerd-" ID64 ".scope",
	       "cri-containerd-" ID64 ".scope", ID64, UID);
	/* Guaranteed pods sit right under kubepods.slice. */
	expect("/kubepods.slice/kubepods-pod" UID_ ".slice", "kubepods-pod" UID_ ".slice", "", UID);
}

Test(workload_name_parse, kubepods_cgroupfs_driver)
{
	expect("/kubepods/burstable/pod" UID, "", "", UID);
	expect("/kubepods/besteffort/pod" UID "/" ID64, "", ID64, UID);
	expect("/kubepods/pod" UID "/" ID64, "", ID64, UID);
	/* "pod..." elsewhere is not a pod, nor its child a container. */
	parse("/apps/pod" UID "/" ID64, 0);
}

Test(workload_name_parse, no_match)
{
	parse("/", 0);
	parse("", 0);
	parse(NULL, 0);
	parse("/tenants/a/b", 0);
	parse("/.service", 0);
	parse("/docker-xyz.scope/kubepods-burstable-pod.slice", 1); /* a unit, no id */
	parse("/docker-abc.scope", 1);				    /* id too short */
}

Test(workload_name_parse, control_bytes_match_nothing)
{
	parse("/system.slice/ev\x1b[31mil.service", 1); /* system.slice only */
	expect("/system.slice/ev\x1b[31mil.service", "system.slice", "", "");
	parse("/a\nb.service", 0);
	parse("/docker-" ID64 "\t.scope", 0);
	parse("/kubepods/burstable/pod" UID "\x01", 0);
	expect("/kubepods/burstable/pod" UID "\x01/" ID64, "", "", "");
	/* Uppercase hex is not what the runtimes write. */
	parse("/docker-3F2A9C0D1E4B.scope", 1);
}

Test(workload_name_parse, very_long_names)
{
	size_t n = 100000;
	char *path = malloc(n + 1);
	struct workload_name w;

	/* One component far past a field: no match, no overflow. */
	path[0] = '/';
	memset(path + 1, 'a', n - 1);
	memcpy(path + n - 8, ".service", 8);
	path[n] = '\0';
	cr_assert_eq(workload_name_parse(path, &w), 0);
	/* The longest unit name that fits is kept whole. */
	memset(path + 1, 'b', 247);
	strcpy(path + 248, ".service");
	cr_assert_eq(workload_name_parse(path, &w), 1);
	cr_assert_eq(strlen(w.unit), 255);
	path[1 + 247 + 8] = 'x';
	strcpy(path + 1 + 248, ".service");
	cr_assert_eq(workload_name_parse(path, &w), 0);
	/* Deep: 10000 levels, the innermost unit wins. */
	for (size_t i = 0; i < 10000; i++)
		memcpy(path + i * 8, "/x.slice", 8);
	strcpy(path + 80000, "/last.scope");
	cr_assert_eq(workload_name_parse(path, &w), 1);
	cr_assert_str_eq(w.unit, "last.scope");
	free(path);
}

Test(workload_name_label, short_forms)
{
	struct workload_name w;
	char buf[64];

	workload_name_parse("/kubepods/besteffort/pod" UID "/" ID64, &w);
	cr_assert_str_eq(workload_name_label(&w, buf, sizeof(buf)), "pod=" UID " ctr="
								    "3f2a9c0d1e4b");
	workload_name_parse("/system.slice/docker-" ID64 ".scope", &w);
	cr_assert_str_eq(workload_name_label(&w, buf, sizeof(buf)), "ctr=3f2a9c0d1e4b");
	workload_name_parse("/kubepods/burstable/pod" UID, &w);
	cr_assert_str_eq(workload_name_label(&w, buf, sizeof(buf)), "pod=" UID);
	workload_name_parse("/system.slice/nginx.service", &w);
	cr_assert_str_eq(workload_name_label(&w, buf, sizeof(buf)), "nginx.service");
	workload_name_parse("/tenants/a", &w);
	cr_assert_str_eq(workload_name_label(&w, buf, sizeof(buf)), "");
	/* Cut to the buffer, always terminated. */
	workload_name_parse("/system.slice/nginx.service", &w);
	cr_assert_str_eq(workload_name_label(&w, buf, 4), "ngi");
}
