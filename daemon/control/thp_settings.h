/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The kernel's THP settings as `taoctl status` shows them: the selected
 * mode of enabled, defrag and khugepaged/defrag, khugepaged's max_ptes_none,
 * and each multi-size THP size's enabled, read from @thp_sysfs (under the
 * daemon root) when asked. A file the kernel lacks is "" (null sizes: []).
 */
#ifndef TAOD_THP_SETTINGS_H
#define TAOD_THP_SETTINGS_H

#include <json-c/json.h>

/* A new object {enabled, defrag, khugepaged_defrag, max_ptes_none,
 * sizes [{size_kb, enabled}] in size order}. */
struct json_object *thp_settings_json(const char *thp_sysfs);
/* "always [madvise] never" -> "madvise"; text without brackets, trimmed. */
void thp_selected(const char *text, char *out, size_t len);

#endif
