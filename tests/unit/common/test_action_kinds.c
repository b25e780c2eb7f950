// SPDX-License-Identifier: GPL-2.0
/* The action kinds' table: one row per kind, looked up by kind and by word. */
#include <criterion/criterion.h>
#include <string.h>

#include "common/action_kinds.h"

Test(action_kinds, action_kind_name_of_every_kind)
{
	cr_assert_str_eq(action_kind_name(ACTION_WARN), "warn");
	cr_assert_str_eq(action_kind_name(ACTION_RESTRICT), "restrict");
	cr_assert_str_eq(action_kind_name(ACTION_GRANT), "grant");
	cr_assert_str_eq(action_kind_name(ACTION_SHATTER), "shatter");
	cr_assert_str_eq(action_kind_name(ACTION_COLLAPSE), "collapse");
	cr_assert_str_eq(action_kind_name(ACTION_RESIZE_ZONES), "resize-zones");
	cr_assert_str_eq(action_kind_name(ACTION_KIND_MAX), "?");
	cr_assert_str_eq(action_kind_name((enum action_kind) - 1), "?");
}

Test(action_kinds, action_kind_by_name_finds_each_word_exactly)
{
	for (int k = 0; k < ACTION_KIND_MAX; k++)
		cr_assert_eq(action_kind_by_name(action_kind_name(k)), k);
	cr_assert_eq(action_kind_by_name("Shatter"), -1);
	cr_assert_eq(action_kind_by_name("resize"), -1);
	cr_assert_eq(action_kind_by_name(""), -1);
	cr_assert_eq(action_kind_by_name("?"), -1);
}

/* The columns the actor and decide read: rungs, byte budget, reach. */
Test(action_kinds, action_kind_row_columns)
{
	unsigned rungs = 0, bytes = 0, machine = 0, task = 0;

	for (int k = 0; k < ACTION_KIND_MAX; k++) {
		const struct action_kind_row *r = action_kind_row(k);

		cr_assert_not_null(r);
		cr_assert(r->what && *r->what, "%s says what it does", r->name);
		rungs |= r->rung << k;
		bytes |= r->bytes << k;
		machine |= r->machine_wide << k;
		task |= r->task << k;
	}
	cr_assert_eq(rungs, 1u << ACTION_WARN | 1u << ACTION_RESTRICT | 1u << ACTION_SHATTER);
	cr_assert_eq(bytes, 1u << ACTION_SHATTER | 1u << ACTION_COLLAPSE);
	cr_assert_eq(machine, 1u << ACTION_RESIZE_ZONES);
	cr_assert_eq(task, 1u << ACTION_WARN | 1u << ACTION_SHATTER);
	cr_assert_null(action_kind_row(ACTION_KIND_MAX));
}

Test(action_kinds, action_kind_words_in_the_tables_order)
{
	char buf[160], small[8];

	action_kind_words(buf, sizeof(buf));
	cr_assert_str_eq(buf, "warn, restrict, grant, shatter, collapse, resize-zones");
	action_kind_words(small, sizeof(small));
	cr_assert_str_eq(small, "warn, r", "cut short, never past the buffer");
}
