// SPDX-License-Identifier: GPL-2.0
/* Canonical cgroup paths: the one spelling the gate compares. */
#include <criterion/criterion.h>
#include <limits.h>
#include <string.h>

#include "common/cgroup_path.h"

Test(cgroup_path, canonical_paths_pass)
{
	const char *ok[] = {"/",	  "/a",	     "/a/b", "/system.slice/db.service",
			    "/a/.hidden", "/a/b..c", "/..a", "/a/..."};

	for (size_t i = 0; i < sizeof(ok) / sizeof(ok[0]); i++)
		cr_assert(cgroup_path_canonical(ok[i], NULL, 0), "%s", ok[i]);
}

Test(cgroup_path, aliases_are_refused_with_a_reason)
{
	const char *bad[] = {"",      "a",	"//",	   "/.",   "/..",  "/a/",
			     "/a//b", "/a/./b", "/a/../b", "/./a", "/a/.", "/a/.."};
	char why[128];

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		why[0] = '\0';
		cr_assert_not(cgroup_path_canonical(bad[i], why, sizeof(why)), "%s", bad[i]);
		cr_assert_neq(why[0], '\0', "%s", bad[i]);
	}
	cr_assert_not(cgroup_path_canonical(NULL, why, sizeof(why)));
}

/* The kernel allows any byte but '/' in a name: a TAB or an ESC is the name. */
Test(cgroup_path, control_characters_are_a_names_own)
{
	const char *ok[] = {"/a\tb", "/t\x1b[31m", "/x/\x01\x7f", "/a\nb/c", "/\x1b"};

	for (size_t i = 0; i < sizeof(ok) / sizeof(ok[0]); i++)
		cr_assert(cgroup_path_canonical(ok[i], NULL, 0), "%s", ok[i]);
	cr_assert_not(cgroup_path_canonical("/a\t/./b", NULL, 0));
	cr_assert_not(cgroup_path_canonical("/\x1b/", NULL, 0));
}

/* Cgroups nest deeper than PATH_MAX; only a dodge inside the path refuses it. */
Test(cgroup_path, path_longer_than_path_max_is_canonical)
{
	static char p[3 * PATH_MAX];

	for (size_t i = 0; i + 1 < sizeof(p); i++)
		p[i] = i % 200 ? 'a' : '/';
	p[sizeof(p) - 1] = '\0';
	cr_assert(cgroup_path_canonical(p, NULL, 0));
	memcpy(p + 2 * PATH_MAX, "/../", 4);
	cr_assert_not(cgroup_path_canonical(p, NULL, 0));
}
