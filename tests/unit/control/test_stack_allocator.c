// SPDX-License-Identifier: GPL-2.0
/*
 * The allocator of a sampled split stack, its files read for real: libc's
 * wrapper shown above a caller that frame-pointer unwinding cannot name.
 */
#include <criterion/criterion.h>
#include <dlfcn.h>
#include <inttypes.h>
#include <json-c/json.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "control/file_lookups.h"
#include "control/stack_allocator.h"

/* Programs every Debian has: coreutils' true imports none of libc's
 * munmap/madvise wrappers, perl-base's perl one of them. */
#define NO_WRAPPER	"/usr/bin/true"
#define A_WRAPPER	"/usr/bin/perl"
#define MAPS_LINE(path) "7f0000000000-7f0000021000 r-xp 00000000 08:01 1234 " path "\n"

static char libc_path[PATH_MAX];
static uint64_t munmap_offset; /* libc's munmap, as a file offset */

/* libc's file and its munmap's file offset, from this process's maps. */
static void find_libc_munmap(void)
{
	void *libc = dlopen("libc.so.6", RTLD_LAZY | RTLD_NOLOAD);
	uintptr_t at = (uintptr_t)(libc ? dlsym(libc, "munmap") : NULL), lo, hi;
	unsigned long long off;
	char line[PATH_MAX + 128], path[PATH_MAX];
	FILE *f = fopen("/proc/self/maps", "r");

	cr_assert(at && f);
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "%" SCNxPTR "-%" SCNxPTR " %*s %llx %*s %*s %4095s", &lo, &hi,
			   &off, path) == 4 &&
		    at >= lo && at < hi) {
			snprintf(libc_path, sizeof(libc_path), "%s", path);
			munmap_offset = at - lo + off;
		}
	fclose(f);
	dlclose(libc);
	cr_assert_neq(libc_path[0], '\0', "libc's munmap is in no mapping");
}

/* A stack of libc's munmap called (as unwinding shows it) from @caller,
 * the split's cause @cause. */
static struct json_object *stack_caused(const char *caller, const char *cause)
{
	struct json_object *s = json_object_new_object(), *frames = json_object_new_array();
	struct json_object *libc = json_object_new_object(), *prog = json_object_new_object();

	json_object_object_add(libc, "file", json_object_new_string(libc_path));
	json_object_object_add(libc, "offset", json_object_new_int64((int64_t)munmap_offset));
	json_object_object_add(prog, "file", json_object_new_string(caller));
	json_object_object_add(prog, "offset", json_object_new_int64(0x1000));
	json_object_array_add(frames, libc);
	json_object_array_add(frames, prog);
	json_object_object_add(s, "frames", frames);
	json_object_object_add(s, "cause", json_object_new_string(cause));
	return s;
}

static struct json_object *stack_of(const char *caller)
{
	return stack_caused(caller, "munmap");
}

static const char *told(const char *caller, const char *maps)
{
	struct json_object *s = stack_of(caller);
	struct file_lookups l;
	const struct allocator_rule *r;

	file_lookups_init(&l);
	r = stack_allocator(s, getpid(), "/", maps, &l);
	file_lookups_free(&l);
	json_object_put(s);
	return r ? r->name : "(the maps decide)";
}

TestSuite(stack_allocator, .init = find_libc_munmap);

Test(stack_allocator, a_caller_that_cannot_call_the_wrapper_means_a_library_did)
{
	cr_assert_str_eq(told(NO_WRAPPER, ""), "glibc malloc");
	cr_assert_str_eq(told(NO_WRAPPER, MAPS_LINE("/usr/lib/x86_64-linux-gnu/libmimalloc.so.2")),
			 "mimalloc", "preloaded mimalloc's decommit, unwound past its frames");
}

Test(stack_allocator,
     a_caller_that_imports_the_wrapper_is_the_program_unless_an_allocator_is_loaded)
{
	cr_assert_str_eq(told(A_WRAPPER, ""), "the program itself");
	cr_assert_str_eq(told(A_WRAPPER, NULL), "the program itself");
	cr_assert_str_eq(told(A_WRAPPER, MAPS_LINE("/usr/lib/x86_64-linux-gnu/libjemalloc.so.2")),
			 "jemalloc");
}

Test(stack_allocator, a_caller_whose_imports_are_unknown_leaves_it_to_the_maps)
{
	cr_assert_str_eq(told("/nonexistent/taod-program", ""), "(the maps decide)");
}

Test(stack_allocator, a_split_no_call_made_names_no_allocator)
{
	const char *causes[] = {"cow", "exit", "reclaim", "khugepaged", "migration", "other"};
	struct file_lookups l;

	for (size_t i = 0; i < sizeof(causes) / sizeof(causes[0]); i++) {
		struct json_object *s = stack_caused(A_WRAPPER, causes[i]);

		file_lookups_init(&l);
		cr_assert_null(stack_allocator(s, getpid(), "/", "", &l), "%s", causes[i]);
		file_lookups_free(&l);
		json_object_put(s);
	}
}

Test(stack_allocator, an_allocators_frame_names_it_whatever_the_maps_say)
{
	struct json_object *s = stack_of("/usr/lib/x86_64-linux-gnu/libtcmalloc.so.4");
	struct file_lookups l;

	file_lookups_init(&l);
	cr_assert_str_eq(stack_allocator(s, getpid(), "/", "", &l)->name, "tcmalloc");
	cr_assert_eq(l.opened, 0, "no file is opened for a library's name");
	file_lookups_free(&l);
	json_object_put(s);
	cr_assert_null(stack_allocator(NULL, getpid(), "/", "", &l));
}

/* jemalloc preloaded, a sample of only libc's frames, unnamed (6.12 lab:
 * "libc.so.6+0x101b07 < ?" was told glibc's malloc): glibc's malloc is
 * unused where a library replaced it. */
Test(stack_allocator, libc_frames_alone_are_the_allocator_that_replaced_malloc)
{
	struct json_object *s = json_object_new_object(), *frames = json_object_new_array();
	struct json_object *libc = json_object_new_object();
	struct file_lookups l;

	json_object_object_add(libc, "file", json_object_new_string(libc_path));
	json_object_object_add(libc, "offset", json_object_new_int64(0)); /* no symbol */
	json_object_array_add(frames, libc);
	json_object_object_add(s, "frames", frames);
	json_object_object_add(s, "cause", json_object_new_string("madvise_dontneed"));
	file_lookups_init(&l);
	cr_assert_str_eq(stack_allocator(s, getpid(), "/", "", &l)->name, "glibc malloc");
	cr_assert_str_eq(stack_allocator(s, getpid(), "/",
					 MAPS_LINE("/usr/lib/x86_64-linux-gnu/libjemalloc.so.2"),
					 &l)
			     ->name,
			 "jemalloc");
	cr_assert_str_eq(stack_allocator(s, getpid(), "/",
					 MAPS_LINE("/usr/lib/jvm/java-17/lib/server/libjvm.so"), &l)
			     ->name,
			 "glibc malloc", "the JVM's native code mallocs with glibc's");
	file_lookups_free(&l);
	json_object_put(s);
}

/* 7.3 lab: the hopper's own munmap was told glibc's malloc when the budget
 * ran out between the caller's imports and libc's symbols: a libc frame
 * whose file was never read is unknown, not malloc's internals. */
Test(stack_allocator, a_libc_frame_the_budget_left_unread_leaves_it_to_the_maps)
{
	struct json_object *s = stack_of(A_WRAPPER);
	struct file_lookups l;

	file_lookups_init(&l);
	l.opened = FILE_LOOKUPS_FILES - 1; /* room for the caller's imports only */
	cr_assert_null(stack_allocator(s, getpid(), "/", "", &l));
	cr_assert_str_eq(l.stopped, "files");
	file_lookups_free(&l);
	file_lookups_init(&l);
	cr_assert_str_eq(stack_allocator(s, getpid(), "/", "", &l)->name, "the program itself",
			 "with the budget whole, libc's munmap is named");
	file_lookups_free(&l);
	json_object_put(s);
}
