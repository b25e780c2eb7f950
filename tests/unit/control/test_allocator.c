// SPDX-License-Identifier: GPL-2.0
/* The allocator table: told from /proc/PID/maps texts and the executable. */
#include <criterion/criterion.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "control/allocator.h"
#include "common/rootfs.h"
#include "../support/scratch.h"

#define LINE(path) "7f0000000000-7f0000021000 r-xp 00000000 08:01 1234 " path "\n"

static const char base_maps[] =
    "55d000000000-55d000001000 r-xp 00000000 08:01 99 /usr/bin/app\n" LINE(
	"/usr/lib/x86_64-linux-gnu/libc.so.6") "7ffd00000000-7ffd00021000 rw-p 00000000 00:00 0 "
					       "[stack]\n";

static const char *detect(const char *lib_line, bool go)
{
	static char maps[4096];

	snprintf(maps, sizeof(maps), "%s%s", base_maps, lib_line);
	return allocator_detect(maps, go)->name;
}

Test(allocator, allocator_detect_finds_each_library)
{
	cr_assert_str_eq(detect(LINE("/usr/lib/x86_64-linux-gnu/libjemalloc.so.2"), false),
			 "jemalloc");
	cr_assert_str_eq(detect(LINE("/usr/lib/libtcmalloc_minimal.so.4.5.9"), false), "tcmalloc");
	cr_assert_str_eq(detect(LINE("/usr/lib/libtcmalloc.so.4"), false), "tcmalloc");
	cr_assert_str_eq(detect(LINE("/usr/lib/jvm/java-17/lib/server/libjvm.so"), false), "jvm");
}

Test(allocator, allocator_detect_tells_go_by_the_executable)
{
	cr_assert_str_eq(detect("", true), "go");
	/* A library found in the maps wins: cgo programs may link jemalloc. */
	cr_assert_str_eq(detect(LINE("/opt/libjemalloc.so.2"), true), "jemalloc");
}

Test(allocator, allocator_detect_falls_back_to_glibc)
{
	cr_assert_str_eq(detect("", false), "glibc malloc");
	/* Only a file name counts, not the word inside a directory name. */
	cr_assert_str_eq(detect(LINE("/opt/mylibjemalloc.so/data.bin"), false), "glibc malloc");
	cr_assert_str_eq(allocator_detect("", false)->name, "glibc malloc");
}

Test(allocator, every_rule_gives_its_owner_switches)
{
	cr_assert(strstr(allocator_detect(LINE("/l/libjemalloc.so.2"), false)->advice,
			 "MALLOC_CONF=thp:never"));
	cr_assert(strstr(allocator_detect(LINE("/l/libtcmalloc.so.4"), false)->advice,
			 "TCMALLOC_RELEASE_RATE=0"));
	cr_assert(strstr(allocator_detect("", true)->advice, "GODEBUG=disablethp=1"));
	cr_assert(strstr(allocator_detect(LINE("/l/libjvm.so"), false)->advice,
			 "-XX:+UseTransparentHugePages"));
	cr_assert(strstr(allocator_detect("", false)->advice, "glibc.malloc.hugetlb=1"));
}

Test(allocator, allocator_of_pid_reads_maps_under_the_root)
{
	char dir[SCRATCH_DIR_MAX], *maps;

	scratch_make(dir, "alloc");
	scratch_write(dir, "/proc/4242/maps", LINE("/usr/lib/libjemalloc.so.2"));
	rootfs_set(dir);
	maps = task_maps_read(4242);
	cr_assert_not_null(maps);
	cr_assert_str_eq(allocator_of_pid(4242, maps)->name, "jemalloc");
	free(maps);
	cr_assert_null(task_maps_read(4243)); /* gone: no maps */
	cr_assert_null(allocator_of_pid(4243, NULL));
	rootfs_set("/");
	cr_assert_eq(scratch_remove(dir), 0);
}
