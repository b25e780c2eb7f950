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
	cr_assert_str_eq(detect(LINE("/usr/lib/x86_64-linux-gnu/libmimalloc.so.2.0"), false),
			 "mimalloc");
}

#define LIBC "/usr/lib/x86_64-linux-gnu/libc.so.6"

static const char *from_frames(const struct allocator_frame *f, size_t n)
{
	const struct allocator_rule *r = allocator_of_frames(f, n);

	return r ? r->name : "(none)";
}

Test(allocator, allocator_of_frames_names_the_library_that_called)
{
	/* mimalloc preloaded beside glibc: its madvise goes through libc. */
	struct allocator_frame mi[] = {
	    {LIBC, "madvise"}, {"/usr/lib/libmimalloc.so.2.0", NULL}, {"/usr/bin/app", "main"}};
	struct allocator_frame je[] = {{"/usr/bin/app", "je_pages_purge_forced"}};
	struct allocator_frame go[] = {{"/usr/bin/gosrv", "runtime.sysUnusedOS"}};

	cr_assert_str_eq(from_frames(mi, 3), "mimalloc");
	cr_assert_str_eq(from_frames(je, 1), "jemalloc"); /* linked in statically */
	cr_assert_str_eq(from_frames(go, 1), "go");
}

Test(allocator, allocator_of_frames_tells_glibc_malloc_from_the_program)
{
	struct allocator_frame direct[] = {
	    {LIBC, "munmap"}, {"/usr/bin/app", "main"}, {LIBC, "__libc_start_call_main"}};
	struct allocator_frame syscall[] = {{"/usr/bin/app", "punch"}};
	struct allocator_frame trim[] = {
	    {LIBC, "__madvise"}, {LIBC, NULL}, {LIBC, "free"}, {"/usr/bin/app", "main"}};
	struct allocator_frame stripped[] = {
	    {LIBC, "munmap"}, {LIBC, NULL}, {"/usr/bin/app", NULL}};
	struct allocator_frame unread[] = {{LIBC, NULL, true}, {"/usr/bin/app", NULL}};
	struct allocator_frame own_free[] = {{LIBC, "munmap"}, {"/usr/bin/app", "free"}};
	struct allocator_frame only_libc[] = {{LIBC, "munmap"}};
	struct allocator_frame nofile[] = {{NULL, NULL}};

	cr_assert_str_eq(from_frames(direct, 3), "the program itself");
	cr_assert_str_eq(from_frames(syscall, 1), "the program itself");
	cr_assert_str_eq(from_frames(trim, 4), "glibc malloc");
	cr_assert_str_eq(from_frames(stripped, 3), "glibc malloc");
	cr_assert_str_eq(from_frames(unread, 2), "(none)", "a libc frame never read tells nothing");
	/* A program's own function named free is not glibc's. */
	cr_assert_str_eq(from_frames(own_free, 2), "the program itself");
	cr_assert_str_eq(from_frames(only_libc, 1), "(none)");
	cr_assert_str_eq(from_frames(nofile, 1), "(none)");
	cr_assert_str_eq(from_frames(NULL, 0), "(none)");
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
	cr_assert(strstr(allocator_detect("", false)->advice, "glibc.malloc.trim_threshold="));
	cr_assert(strstr(allocator_detect(LINE("/l/libmimalloc.so.2.0"), false)->advice,
			 "MIMALLOC_ALLOW_DECOMMIT=0"));
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

Test(allocator, an_allocators_library_is_told_without_symbols)
{
	struct allocator_frame mi[] = {{LIBC, NULL}, {"/usr/lib/libmimalloc.so.2", NULL}};
	struct allocator_frame app[] = {{LIBC, "munmap"}, {"/usr/bin/app", NULL}};

	cr_assert_str_eq(allocator_of_frame_files(mi, 2)->name, "mimalloc");
	cr_assert_null(allocator_of_frame_files(app, 2));
	cr_assert_str_eq(allocator_of_libs(LINE("/usr/lib/libtcmalloc.so.4"))->name, "tcmalloc");
	cr_assert_null(allocator_of_libs(base_maps), "glibc is no library rule");
	cr_assert_null(allocator_of_libs(NULL));
}

/* The frame that called into libc's innermost frames: whose imports tell
 * whether it could have called libc's munmap or madvise itself. */
Test(allocator, allocator_caller_is_the_frame_below_libc)
{
	struct allocator_frame trim[] = {{LIBC, "__madvise"}, {"/usr/bin/kvcache", NULL}};
	struct allocator_frame raw[] = {{"/usr/bin/app", "punch"}};
	struct allocator_frame all_libc[] = {{LIBC, "munmap"}, {NULL, NULL}};

	cr_assert_eq(allocator_caller(trim, 2), 1);
	cr_assert_eq(allocator_caller(raw, 1), 0);
	cr_assert_eq(allocator_caller(all_libc, 2), 2);
	cr_assert(strstr(allocator_libc_wrappers, "__madvise"));
}
