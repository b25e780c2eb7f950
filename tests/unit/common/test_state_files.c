// SPDX-License-Identifier: GPL-2.0
/* Files taod owns: no symlink followed, no predictable temporary name, private modes. */
#include <criterion/criterion.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "report/history/history.h"
#include "common/state_files.h"

#include "../support/scratch.h"

static char dir[SCRATCH_DIR_MAX];

static void make_tmp(void)
{
	scratch_make(dir, "files");
}

static void remove_tmp(void)
{
	cr_assert_eq(scratch_remove(dir), 0);
}

TestSuite(state_files, .init = make_tmp, .fini = remove_tmp);

static void path_in(char *buf, size_t len, const char *name)
{
	snprintf(buf, len, "%s/%s", dir, name);
}

/* A file an attacker wants overwritten, and a symlink to it at @name. */
static void plant(const char *name, char *victim, size_t len)
{
	char link[128];

	snprintf(victim, len, "%s", scratch_write(dir, "victim", "precious\n"));
	path_in(link, sizeof(link), name);
	cr_assert_eq(symlink(victim, link), 0);
}

static void assert_victim_intact(const char *victim)
{
	char buf[32] = {0};
	FILE *f = fopen(victim, "r");

	cr_assert_not_null(f);
	cr_assert_not_null(fgets(buf, sizeof(buf), f));
	fclose(f);
	cr_assert_str_eq(buf, "precious\n");
}

static mode_t mode_of(const char *path)
{
	struct stat st;

	cr_assert_eq(lstat(path, &st), 0, "%s", path);
	return st.st_mode & 07777;
}

Test(state_files, private_file_refuses_a_symlink)
{
	char victim[128], path[128];

	plant("audit.jsonl", victim, sizeof(victim));
	path_in(path, sizeof(path), "audit.jsonl");
	cr_assert_eq(open_private_file(path, O_WRONLY | O_APPEND, 0600), -ELOOP);
	assert_victim_intact(victim);
}

Test(state_files, private_file_refuses_a_fifo_without_blocking)
{
	char path[128];

	path_in(path, sizeof(path), "fifo");
	cr_assert_eq(mkfifo(path, 0666), 0);
	cr_assert_lt(open_private_file(path, O_WRONLY | O_APPEND, 0600), 0);
}

Test(state_files, private_file_is_created_and_narrowed_to_its_mode)
{
	char path[128];
	int fd;

	path_in(path, sizeof(path), "a/b/audit.jsonl");
	cr_assert_eq(make_parent_dirs(path, 0700), 0);
	fd = open_private_file(path, O_WRONLY | O_APPEND, 0600);
	cr_assert_geq(fd, 0);
	close(fd);
	cr_assert_eq(mode_of(path), 0600);
	path_in(path, sizeof(path), "a");
	cr_assert_eq(mode_of(path), 0700);
	path_in(path, sizeof(path), "old");
	close(open(path, O_CREAT | O_WRONLY, 0644));
	chmod(path, 0644);
	fd = open_private_file(path, O_WRONLY | O_APPEND, 0600);
	close(fd);
	cr_assert_eq(mode_of(path), 0600);
}

Test(state_files, history_database_and_wal_are_private)
{
	struct history *h;
	char path[128], err[256];

	path_in(path, sizeof(path), "state/history.db");
	cr_assert_eq(history_open(&h, path, err, sizeof(err)), 0, "%s", err);
	cr_assert_eq(history_begin_run(h, 1, "test"), 0);
	cr_assert_eq(mode_of(path), 0600);
	strcat(path, "-wal");
	cr_assert_eq(mode_of(path), 0600);
	strcpy(path + strlen(path) - 4, "-shm");
	cr_assert_eq(mode_of(path), 0600);
	path_in(path, sizeof(path), "state");
	cr_assert_eq(mode_of(path), 0700);
	history_close(h);
}
