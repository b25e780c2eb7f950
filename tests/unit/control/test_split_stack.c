// SPDX-License-Identifier: GPL-2.0
/* Split stacks as JSON: frames named by the task's mappings. */
#include <criterion/criterion.h>
#include <json-c/json.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/elf_file.h"
#include "control/file_lookups.h"
#include "control/split_stack.h"

/* split_stack_json with a fresh budget of file lookups. */
static struct json_object *stack_json(const struct taod_split_stack *s, const char *maps)
{
	struct file_lookups l;
	struct json_object *o;

	file_lookups_init(&l);
	o = split_stack_json(s, maps, "/", &l);
	file_lookups_free(&l);
	return o;
}

static const char *frames_text(struct json_object *o)
{
	struct json_object *frames;

	cr_assert(json_object_object_get_ex(o, "frames", &frames));
	return json_object_to_json_string_ext(frames, JSON_C_TO_STRING_PLAIN |
							  JSON_C_TO_STRING_NOSLASHESCAPE);
}

Test(split_stack, split_stack_json_names_the_file_mapped_at_an_ip)
{
	static const char maps[] =
	    "400000-401000 r--p 00000000 08:01 7 /usr/bin/app\n"
	    "401000-405000 r-xp 00001000 08:01 7 /usr/bin/app\n"
	    "7f0000000000-7f0000200000 rw-p 00000000 00:00 0 \n"
	    "7f1000000000-7f1000100000 r-xp 00028000 08:01 9 /usr/lib/libc.so.6\n";
	struct taod_split_stack s = {.samples = 4, .cause = TAOD_CAUSE_MPROTECT, .nframes = 3};
	struct json_object *o;

	s.frames[0].status = BPF_STACK_BUILD_ID_IP;
	s.frames[0].ip = 0x7f1000000010;
	s.frames[1].status = BPF_STACK_BUILD_ID_IP;
	s.frames[1].ip = 0x402345;
	s.frames[2].status = BPF_STACK_BUILD_ID_IP;
	s.frames[2].ip = 0x7f0000000100; /* anonymous memory: JIT code, say */
	o = stack_json(&s, maps);
	cr_assert_str_eq(
	    frames_text(o),
	    "[{\"ip\":139706696204304,\"offset\":163856,\"file\":\"/usr/lib/libc.so.6\"},"
	    "{\"ip\":4203333,\"offset\":9029,\"file\":\"/usr/bin/app\"},"
	    "{\"ip\":139637976727808,\"file\":null}]");
	json_object_put(o);
	/* The task is gone: no files. */
	s.nframes = 1;
	o = stack_json(&s, NULL);
	cr_assert_str_eq(frames_text(o), "[{\"ip\":139706696204304,\"file\":null}]");
	json_object_put(o);
}

Test(split_stack, split_stack_json_finds_the_file_with_the_build_id)
{
	char self[PATH_MAX], maps[PATH_MAX * 3], want[PATH_MAX + 64];
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	struct taod_split_stack s = {.samples = 1, .cause = TAOD_CAUSE_COW, .nframes = 2};
	struct json_object *o, *cause;

	cr_assert_gt(n, 0);
	self[n] = '\0';
	snprintf(maps, sizeof(maps),
		 "1000-2000 r-xp 00000000 08:01 9 /nonexistent/lib.so\n"
		 "2000-3000 r-xp 00000000 08:01 7 %s\n",
		 self);
	s.frames[0].status = BPF_STACK_BUILD_ID_VALID;
	cr_assert_eq(elf_build_id("/", self, s.frames[0].build_id), ELF_BUILD_ID_MAX);
	s.frames[0].offset = 0x1234;
	s.frames[1].status = BPF_STACK_BUILD_ID_VALID; /* a build-id no mapped file has */
	memset(s.frames[1].build_id, 0xab, sizeof(s.frames[1].build_id));
	o = stack_json(&s, maps);
	cr_assert(json_object_object_get_ex(o, "cause", &cause));
	cr_assert_str_eq(json_object_get_string(cause), "cow");
	snprintf(want, sizeof(want), "\"offset\":4660,\"file\":\"%s\"}", self);
	cr_assert(strstr(frames_text(o), want), "%s", frames_text(o));
	cr_assert(strstr(frames_text(o),
			 "{\"build_id\":\"abababababababababababababababababababab\","
			 "\"offset\":0,\"file\":null}"),
		  "%s", frames_text(o));
	json_object_put(o);
}

/* Issue 27: a deleted file's name with a FIFO put at it used to block
 * taod's loop in open(); each file is also looked up once per request. */
Test(split_stack, split_stack_json_never_opens_a_deleted_files_name)
{
	char self[PATH_MAX], dir[] = "/tmp/taod-stack-XXXXXX", fifo[PATH_MAX + 32];
	char maps[PATH_MAX * 6];
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	struct taod_split_stack s = {.samples = 1, .cause = TAOD_CAUSE_MUNMAP, .nframes = 1};
	struct file_lookups l;
	struct json_object *o;

	cr_assert_gt(n, 0);
	self[n] = '\0';
	cr_assert(mkdtemp(dir));
	snprintf(fifo, sizeof(fifo), "%s/heap (deleted)", dir);
	cr_assert_eq(mkfifo(fifo, 0600), 0);
	snprintf(maps, sizeof(maps),
		 "1000-2000 r--p 00000000 08:01 9 %s\n3000-4000 r--p 00000000 08:01 7 %s\n"
		 "5000-6000 r--p 00000000 08:01 9 %s\n7000-8000 r-xp 00000000 08:01 7 %s\n",
		 fifo, self, fifo, self);
	s.frames[0].status = BPF_STACK_BUILD_ID_VALID;
	cr_assert_eq(elf_build_id("/", self, s.frames[0].build_id), ELF_BUILD_ID_MAX);
	file_lookups_init(&l);
	o = split_stack_json(&s, maps, "/", &l);
	cr_assert(strstr(frames_text(o), self), "%s", frames_text(o));
	cr_assert_eq(l.opened, 1, "%u", l.opened); /* self once; the FIFO never */
	cr_assert_null(l.stopped);
	json_object_put(o);
	file_lookups_free(&l);
	unlink(fifo);
	rmdir(dir);
}

/* Issue 26: a kernel address in a user stack sample is no frame; taoctl
 * showed it as "reqchurn+0x7fffffffffffffff". */
Test(split_stack, split_stack_json_drops_frames_at_kernel_addresses)
{
	static const char maps[] = "401000-405000 r-xp 00001000 08:01 7 /usr/bin/app\n";
	struct taod_split_stack s = {.samples = 1, .cause = TAOD_CAUSE_MUNMAP, .nframes = 3};
	struct json_object *o;

	s.frames[0].status = BPF_STACK_BUILD_ID_VALID;
	s.frames[0].offset = 0xffffa9af7004c000ULL;
	s.frames[1].status = BPF_STACK_BUILD_ID_IP;
	s.frames[1].ip = 0xffffffff81000000ULL;
	s.frames[2].status = BPF_STACK_BUILD_ID_IP;
	s.frames[2].ip = 0x402345;
	o = stack_json(&s, maps);
	cr_assert_str_eq(frames_text(o),
			 "[{\"ip\":4203333,\"offset\":9029,\"file\":\"/usr/bin/app\"}]");
	json_object_put(o);
}
