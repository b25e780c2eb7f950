// SPDX-License-Identifier: GPL-2.0
/* log_errno: the one way a dropped result is logged; foreground lines carry
 * their time; a repeated warning is said once, then counted. */
#include <criterion/criterion.h>
#include <criterion/redirect.h>
#include <errno.h>
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/log.h"

static void plain_stderr(void)
{
	unsetenv("JOURNAL_STREAM");
	log_init("taod");
	cr_redirect_stderr();
}

/* What the test wrote to stderr, in @buf. */
static const char *written(char *buf, size_t len)
{
	FILE *f;
	size_t n;

	fflush(stderr);
	f = cr_get_redirected_stderr();
	n = fread(buf, 1, len - 1, f);
	buf[n] = '\0';
	return buf;
}

Test(log, errno_logged_and_returned, .init = plain_stderr)
{
	char out[512];
	regex_t re;

	cr_assert_eq(log_errno(LOG_WARNING, -ENOENT, "opening /x"), -ENOENT);
	cr_assert_eq(log_errno(LOG_WARNING, 0, "nothing wrong"), 0);
	cr_assert_eq(log_errno(LOG_WARNING, 3, "a count"), 3);
	cr_assert_eq(log_errno(LOG_DEBUG, -EIO, "below the level"), -EIO);
	cr_assert_eq(regcomp(&re,
			     "^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}\\.[0-9]{3} "
			     "taod: opening /x: No such file or directory\n$",
			     REG_EXTENDED),
		     0);
	cr_assert_eq(regexec(&re, written(out, sizeof(out)), 0, NULL, 0), 0, "%s", out);
	regfree(&re);
}

Test(log, repeated_warning_said_once_then_counted, .init = plain_stderr)
{
	char out[1024];

	for (int i = 0; i < 3; i++)
		log_repeated(LOG_REPEAT_DEBUGFS_FALLBACK, LOG_INFO, "split_huge_pages: refused %d",
			     i);
	cr_assert_eq(log_repeat_count(LOG_REPEAT_DEBUGFS_FALLBACK), 3);
	cr_assert_eq(log_repeat_count(LOG_REPEAT_DEBUGFS_MOUNT), 0);
	cr_assert_str_eq(log_repeat_key(LOG_REPEAT_DEBUGFS_FALLBACK), "debugfs_split_refused");
	written(out, sizeof(out));
	cr_assert(strstr(out, "refused 0 (said once; repeats are counted in taoctl status: "
			      "debugfs_split_refused)\n"),
		  "%s", out);
	cr_assert_null(strstr(out, "refused 1"), "%s", out);
	cr_assert_null(strstr(out, "refused 2"), "%s", out);
}
