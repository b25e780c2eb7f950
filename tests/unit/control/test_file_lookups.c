// SPDX-License-Identifier: GPL-2.0
/* A request's file lookups: once per file, within a time and file budget. */
#include <criterion/criterion.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "control/file_lookups.h"

static void self_path(char *buf, size_t len)
{
	ssize_t n = readlink("/proc/self/exe", buf, len - 1);

	cr_assert_gt(n, 0);
	buf[n] = '\0';
}

Test(file_lookups, file_lookups_build_id_opens_each_file_once)
{
	unsigned char a[ELF_BUILD_ID_MAX], b[ELF_BUILD_ID_MAX];
	struct file_lookups l;
	char self[PATH_MAX];

	self_path(self, sizeof(self));
	file_lookups_init(&l);
	cr_assert_eq(file_lookups_build_id(&l, "/", self, a), ELF_BUILD_ID_MAX);
	cr_assert_eq(file_lookups_build_id(&l, "/", self, b), ELF_BUILD_ID_MAX);
	cr_assert_eq(memcmp(a, b, sizeof(a)), 0);
	cr_assert_eq(l.opened, 1);
	cr_assert_eq(file_lookups_build_id(&l, "/", "/nonexistent/taod", a), 0);
	cr_assert_eq(l.opened, 2);
	file_lookups_free(&l);
}

Test(file_lookups, file_lookups_build_id_stops_at_the_file_cap)
{
	unsigned char id[ELF_BUILD_ID_MAX];
	struct file_lookups l;
	char path[64];

	file_lookups_init(&l);
	for (int i = 0; i < FILE_LOOKUPS_FILES + 10; i++) {
		snprintf(path, sizeof(path), "/nonexistent/taod-%d", i);
		file_lookups_build_id(&l, "/", path, id);
	}
	cr_assert_eq(l.opened, FILE_LOOKUPS_FILES);
	cr_assert_str_eq(l.stopped, "files");
	file_lookups_free(&l);
}

Test(file_lookups, file_lookups_time_left_stops_at_the_deadline)
{
	unsigned char id[ELF_BUILD_ID_MAX];
	struct file_lookups l;
	char self[PATH_MAX];

	self_path(self, sizeof(self));
	file_lookups_init(&l);
	cr_assert(file_lookups_time_left(&l));
	l.deadline_us = 1; /* long past */
	cr_assert_not(file_lookups_time_left(&l));
	cr_assert_str_eq(l.stopped, "time");
	cr_assert_eq(file_lookups_build_id(&l, "/", self, id), 0);
	cr_assert_eq(l.opened, 0);
	file_lookups_free(&l);
}
