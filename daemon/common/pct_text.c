// SPDX-License-Identifier: GPL-2.0
/* One spelling of a percentage, so taoctl report and the live tables agree. */
#include "pct_text.h"

#include <stdio.h>

const char *pct_text(char *buf, size_t len, double pct, const char *suffix)
{
	if (pct < 0)
		snprintf(buf, len, "-");
	else
		snprintf(buf, len, "%.1f%s", pct, suffix);
	return buf;
}
