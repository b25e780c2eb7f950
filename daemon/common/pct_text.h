/* SPDX-License-Identifier: GPL-2.0 */
/* A percentage as taod's tables print it: taoctl report and taoctl's own. */
#ifndef TAOD_PCT_TEXT_H
#define TAOD_PCT_TEXT_H

#include <stddef.h>

/*
 * "87.5" (one decimal) then @suffix ("" or "%"); "-" alone when @pct is
 * negative, taod's mark for a percentage it does not know (no memory.stat
 * read). Returns @buf.
 */
const char *pct_text(char *buf, size_t len, double pct, const char *suffix);

#endif
