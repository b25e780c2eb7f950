// SPDX-License-Identifier: GPL-2.0
/* log_errno: the one way a dropped result is logged. */
#include <criterion/criterion.h>
#include <criterion/redirect.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include "common/log.h"

static void plain_stderr(void)
{
	unsetenv("JOURNAL_STREAM");
	log_init("taod");
	cr_redirect_stderr();
}

Test(log, errno_logged_and_returned, .init = plain_stderr)
{
	cr_assert_eq(log_errno(LOG_WARNING, -ENOENT, "opening /x"), -ENOENT);
	cr_assert_eq(log_errno(LOG_WARNING, 0, "nothing wrong"), 0);
	cr_assert_eq(log_errno(LOG_WARNING, 3, "a count"), 3);
	cr_assert_eq(log_errno(LOG_DEBUG, -EIO, "below the level"), -EIO);
	fflush(stderr);
	cr_assert_stderr_eq_str("taod: opening /x: No such file or directory\n");
}
