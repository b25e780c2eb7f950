// SPDX-License-Identifier: GPL-2.0
#include <criterion/criterion.h>

#include <stdio.h>
#include <stdlib.h>

#include "taod/mthp_probe.h"
#include "taod/rootfs.h"

Test(mthp_probe, mode_text)
{
	cr_assert_not(mthp_mode_on("always inherit madvise [never]\n"));
	cr_assert(mthp_mode_on("always [inherit] madvise never\n"));
	cr_assert(mthp_mode_on("[always] inherit madvise never\n"));
	cr_assert_not(mthp_mode_on(""));
}

static void put(const char *root, const char *rel, const char *text)
{
	char path[512];
	FILE *f;

	snprintf(path, sizeof(path), "%s%s", root, rel);
	f = fopen(path, "w");
	cr_assert(f, "%s", path);
	fputs(text, f);
	fclose(f);
}

/* Only sizes below the PMD size count: PMD THPs are seen without a
 * program on every page allocation. */
Test(mthp_probe, sizes_below_pmd_only)
{
	char root[] = "/tmp/taod-mthp-XXXXXX", cmd[600];
	const char *thp = "/sys/kernel/mm/transparent_hugepage";

	cr_assert(mkdtemp(root));
	snprintf(cmd, sizeof(cmd), "mkdir -p %s%s/hugepages-2048kB %s%s/hugepages-64kB", root, thp,
		 root, thp);
	cr_assert_eq(system(cmd), 0);
	put(root, "/sys/kernel/mm/transparent_hugepage/hpage_pmd_size", "2097152\n");
	put(root, "/sys/kernel/mm/transparent_hugepage/hugepages-2048kB/enabled",
	    "always [inherit] madvise never\n");
	put(root, "/sys/kernel/mm/transparent_hugepage/hugepages-64kB/enabled",
	    "always inherit madvise [never]\n");
	rootfs_set(root);
	cr_assert_not(mthp_enabled(thp));
	put(root, "/sys/kernel/mm/transparent_hugepage/hugepages-64kB/enabled",
	    "always inherit [madvise] never\n");
	cr_assert(mthp_enabled(thp));
	rootfs_set("");
	snprintf(cmd, sizeof(cmd), "rm -rf %s", root);
	cr_assert_eq(system(cmd), 0);
}
