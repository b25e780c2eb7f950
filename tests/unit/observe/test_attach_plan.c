// SPDX-License-Identifier: GPL-2.0
#include <criterion/criterion.h>
#include <string.h>

#include "observe/attach_plan.h"

static const struct btf_facts modern = {.memcg_tracepoints = true,
					.memcg_functions = true,
					.pmd_split_fn = "__split_huge_pmd",
					.folio_split_fn = "__folio_split"};

Test(attach_plan, modern_kernel_tries_exact_splits_then_tracepoints)
{
	struct attach_plan p[ATTACH_PLANS_MAX];
	char why[200] = "";

	cr_assert_eq(attach_plans(&modern, ATTACH_AUTO, p, why, sizeof(why)), 2);
	cr_assert(!p[0].memcg_fentry && p[0].split_fentry);
	cr_assert_str_eq(p[0].mode, "fentry+tracepoint");
	cr_assert(!p[1].memcg_fentry && !p[1].split_fentry);
	cr_assert_str_eq(p[1].mode, "tracepoint");
}

Test(attach_plan, config_narrows_the_choice)
{
	struct attach_plan p[ATTACH_PLANS_MAX];
	char why[200] = "";

	cr_assert_eq(attach_plans(&modern, ATTACH_TRACEPOINT, p, why, sizeof(why)), 1);
	cr_assert_str_eq(p[0].mode, "tracepoint");
	cr_assert_eq(attach_plans(&modern, ATTACH_FENTRY, p, why, sizeof(why)), 1);
	cr_assert(p[0].split_fentry);
}

Test(attach_plan, pre_6_13_kernel_counts_memcg_events_with_fentry)
{
	struct btf_facts old = modern;
	struct attach_plan p[ATTACH_PLANS_MAX];
	char why[200] = "";

	old.memcg_tracepoints = false;
	cr_assert_eq(attach_plans(&old, ATTACH_AUTO, p, why, sizeof(why)), 2);
	cr_assert(p[0].memcg_fentry && p[0].split_fentry);
	cr_assert_str_eq(p[0].mode, "fentry (exact splits)");
	cr_assert(p[1].memcg_fentry && !p[1].split_fentry);
	cr_assert_str_eq(p[1].mode, "fentry");
	cr_assert_eq(attach_plans(&old, ATTACH_TRACEPOINT, p, why, sizeof(why)), 0);
	cr_assert(strstr(why, "no memcg tracepoints"), "%s", why);
}

Test(attach_plan, nothing_to_observe_with_is_explained)
{
	struct btf_facts none = {0};
	struct btf_facts no_split = modern;
	struct attach_plan p[ATTACH_PLANS_MAX];
	char why[200] = "";

	cr_assert_eq(attach_plans(&none, ATTACH_AUTO, p, why, sizeof(why)), 0);
	cr_assert(strstr(why, "neither the memcg tracepoints"), "%s", why);
	no_split.pmd_split_fn = NULL;
	cr_assert_eq(attach_plans(&no_split, ATTACH_AUTO, p, why, sizeof(why)), 1);
	cr_assert_str_eq(p[0].mode, "tracepoint");
	cr_assert_eq(attach_plans(&no_split, ATTACH_FENTRY, p, why, sizeof(why)), 0);
	cr_assert(strstr(why, "no split function"), "%s", why);
}

Test(attach_plan, thp_paths_come_first_where_btf_has_them)
{
	struct btf_facts thp = modern;
	struct attach_plan p[ATTACH_PLANS_MAX];
	char why[200] = "";

	thp.thp_path_fns = true;
	cr_assert_eq(attach_plans(&thp, ATTACH_AUTO, p, why, sizeof(why)), 3);
	cr_assert(p[0].thp_paths && p[0].split_fentry && !p[0].memcg_fentry);
	cr_assert_str_eq(p[0].mode, "fentry (THP paths)");
	cr_assert_str_eq(p[1].mode, "fentry+tracepoint");
	cr_assert(!p[1].thp_paths && !p[2].thp_paths);
	cr_assert_str_eq(p[2].mode, "tracepoint");
	/* attach = tracepoint never tries fentry; fentry tries both fentry plans. */
	cr_assert_eq(attach_plans(&thp, ATTACH_TRACEPOINT, p, why, sizeof(why)), 1);
	cr_assert_str_eq(p[0].mode, "tracepoint");
	cr_assert_eq(attach_plans(&thp, ATTACH_FENTRY, p, why, sizeof(why)), 2);
	cr_assert(p[0].thp_paths && !p[1].thp_paths);
}

Test(attach_plan, thp_paths_need_the_split_functions_too)
{
	struct btf_facts thp = modern;
	struct attach_plan p[ATTACH_PLANS_MAX];
	char why[200] = "";

	thp.thp_path_fns = true;
	thp.folio_split_fn = NULL;
	cr_assert_eq(attach_plans(&thp, ATTACH_AUTO, p, why, sizeof(why)), 1);
	cr_assert_str_eq(p[0].mode, "tracepoint");
}

Test(attach_plan, pre_6_13_kernel_with_thp_paths_falls_back_to_memcg_fentry)
{
	struct btf_facts old = modern;
	struct attach_plan p[ATTACH_PLANS_MAX];
	char why[200] = "";

	old.memcg_tracepoints = false;
	old.thp_path_fns = true;
	cr_assert_eq(attach_plans(&old, ATTACH_AUTO, p, why, sizeof(why)), 3);
	cr_assert_str_eq(p[0].mode, "fentry (THP paths)");
	cr_assert_str_eq(p[1].mode, "fentry (exact splits)");
	cr_assert_str_eq(p[2].mode, "fentry");
	/* Without the memcg functions, the THP paths alone can still work. */
	old.memcg_functions = false;
	cr_assert_eq(attach_plans(&old, ATTACH_AUTO, p, why, sizeof(why)), 1);
	cr_assert(p[0].thp_paths);
}

Test(attach_plan, memcg_setting_skips_the_thp_paths)
{
	struct btf_facts thp = modern;
	struct attach_plan p[ATTACH_PLANS_MAX];
	char why[200] = "";

	thp.thp_path_fns = true;
	cr_assert_eq(attach_plans(&thp, ATTACH_MEMCG, p, why, sizeof(why)), 2);
	cr_assert_str_eq(p[0].mode, "fentry+tracepoint");
	cr_assert_str_eq(p[1].mode, "tracepoint");
	thp.memcg_tracepoints = false;
	cr_assert_eq(attach_plans(&thp, ATTACH_MEMCG, p, why, sizeof(why)), 2);
	cr_assert_str_eq(p[0].mode, "fentry (exact splits)");
	cr_assert(!p[0].thp_paths && !p[1].thp_paths);
}
