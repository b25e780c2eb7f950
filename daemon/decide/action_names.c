// SPDX-License-Identifier: GPL-2.0
/* Names of action results (kinds: action_kinds.c), as the audit log and taoctl show them. */
#include "taod/action.h"

const char *action_result_name(enum action_result r)
{
	static const char *const names[RESULT_MAX] = {
	    [RESULT_DONE] = "done",
	    [RESULT_FAILED] = "failed",
	    [RESULT_DRY_RUN] = "dry-run",
	    [RESULT_RATE_LIMITED] = "rate-limited",
	    [RESULT_ALLOWLISTED] = "allowlisted",
	    [RESULT_VANISHED] = "vanished",
	    [RESULT_BACKING_OFF] = "backing-off",
	    [RESULT_UNSUPPORTED] = "unsupported",
	    [RESULT_NO_GAIN] = "no-gain",
	    [RESULT_NOT_POSSIBLE] = "not-possible",
	};

	return (unsigned)r < RESULT_MAX ? names[r] : "?";
}
