/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Whether any multi-size THP (smaller than a PMD) is enabled: only then do
 * large folios below PMD order appear, and only then is a program on every
 * page allocation worth its cost.
 */
#ifndef TAOD_MTHP_PROBE_H
#define TAOD_MTHP_PROBE_H

#include <stdbool.h>

/* @thp_sysfs: the transparent_hugepage directory (under the daemon root). */
bool mthp_enabled(const char *thp_sysfs);
/* One "enabled" file's text: true unless the selected mode is [never]. */
bool mthp_mode_on(const char *enabled_text);

#endif
