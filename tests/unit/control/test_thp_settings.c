// SPDX-License-Identifier: GPL-2.0
/* thp_selected: the mode sysfs selects, as `taoctl status` shows it. */
#include <criterion/criterion.h>

#include "control/thp_settings.h"

static const struct {
	const char *text, *want;
} rows[] = {
    {"always [madvise] never\n", "madvise"},
    {"always defer defer+madvise [madvise] never\n", "madvise"},
    {"[always] inherit madvise never\n", "always"},
    {"511\n", "511"},
    {"", ""},
    {"[unterminated\n", "[unterminated"},
};

Test(thp_settings, selected_mode)
{
	char out[32];

	for (size_t i = 0; i < sizeof(rows) / sizeof(*rows); i++) {
		thp_selected(rows[i].text, out, sizeof(out));
		cr_assert_str_eq(out, rows[i].want, "%s", rows[i].text);
	}
}
