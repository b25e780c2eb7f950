// SPDX-License-Identifier: GPL-2.0
/*
 * The zones --apply drop-in (cmdline_dropin.c) is written through a fresh
 * name: a FIFO or a hard link someone planted at "<dropin>.new" is neither
 * opened (a FIFO with no reader would hang taod) nor written through.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "act/tao/cmdline_dropin.h"
#include "common/rootfs.h"

#include "../../support/scratch.h"

static char dir[SCRATCH_DIR_MAX];
static char dropin[128], planted[160];

static void setup(void)
{
	scratch_make(dir, "dropin");
	rootfs_set("");
	snprintf(dropin, sizeof(dropin), "%s/grub.d/taod-zones.cfg", dir);
	snprintf(planted, sizeof(planted), "%s.new", dropin);
	scratch_mkdir(dir, "grub.d");
}

static void teardown(void)
{
	cr_assert_eq(scratch_remove(dir), 0);
}

TestSuite(cmdline_dropin, .init = setup, .fini = teardown, .timeout = 10);

static void assert_written(void)
{
	char *text = scratch_read(dropin);

	cr_assert(strstr(text, "GRUB_CMDLINE_LINUX=\"$GRUB_CMDLINE_LINUX nosplit=512M,4\""), "%s",
		  text);
	free(text);
}

Test(cmdline_dropin, cmdline_dropin_write_never_opens_a_fifo_planted_beside_it)
{
	cr_assert_eq(mkfifo(planted, 0666), 0);
	/* Without a reader, open(O_WRONLY) on the FIFO blocks: the timeout fails the test. */
	cr_assert_eq(cmdline_dropin_write(dropin, "nosplit=512M,4"), 0);
	assert_written();
}

Test(cmdline_dropin, cmdline_dropin_write_never_truncates_a_hard_link_planted_beside_it)
{
	const char *victim = scratch_write(dir, "victim", "precious\n");
	char *text;

	cr_assert_eq(link(victim, planted), 0);
	cr_assert_eq(cmdline_dropin_write(dropin, "nosplit=512M,4"), 0);
	assert_written();
	text = scratch_read(victim);
	cr_assert_str_eq(text, "precious\n");
	free(text);
}

Test(cmdline_dropin, cmdline_dropin_write_is_readable_by_grub)
{
	struct stat st;

	cr_assert_eq(cmdline_dropin_write(dropin, "nosplit=512M,4 nomerge=1G,9"), 0);
	cr_assert_eq(stat(dropin, &st), 0);
	cr_assert_eq(st.st_mode & 07777, 0644);
}
