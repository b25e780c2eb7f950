// SPDX-License-Identifier: GPL-2.0
/* Canonical cgroup paths: the one spelling the gate compares. */
#include <criterion/criterion.h>
#include <limits.h>
#include <string.h>

#include "taod/cgroup_path.h"

Test(cgroup_path, canonical_paths_pass)
{
	const char *ok[] = {"/",	  "/a",	     "/a/b", "/system.slice/db.service",
			    "/a/.hidden", "/a/b..c", "/..a", "/a/..."};

	for (size_t i = 0; i < sizeof(ok) / sizeof(ok[0]); i++)
		cr_assert(cgroup_path_canonical(ok[i], NULL, 0), "%s", ok[i]);
}

Test(cgroup_path, aliases_are_refused_with_a_reason)
{
	const char *bad[] = {"",       "a",	  "//",	  "/.",	  "/..",   "/a/",   "/a//b",
			     "/a/./b", "/a/../b", "/./a", "/a/.", "/a/..", "/a\nb", "/a\tb"};
	char why[128];

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		why[0] = '\0';
		cr_assert_not(cgroup_path_canonical(bad[i], why, sizeof(why)), "%s", bad[i]);
		cr_assert_neq(why[0], '\0', "%s", bad[i]);
	}
	cr_assert_not(cgroup_path_canonical(NULL, why, sizeof(why)));
}

Test(cgroup_path, overlong_path_is_refused)
{
	static char p[PATH_MAX + 8];

	memset(p, 'a', sizeof(p) - 1);
	p[0] = '/';
	p[sizeof(p) - 1] = '\0';
	cr_assert_not(cgroup_path_canonical(p, NULL, 0));
}
