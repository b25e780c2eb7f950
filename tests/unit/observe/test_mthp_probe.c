// SPDX-License-Identifier: GPL-2.0
#include <criterion/criterion.h>

#include <stdio.h>
#include <stdlib.h>

#include "observe/mthp_probe.h"
#include "common/rootfs.h"

#include "../support/scratch.h"

Test(mthp_probe, mode_text)
{
	cr_assert_not(mthp_mode_on("always inherit madvise [never]\n"));
	cr_assert(mthp_mode_on("always [inherit] madvise never\n"));
	cr_assert(mthp_mode_on("[always] inherit madvise never\n"));
	cr_assert_not(mthp_mode_on(""));
}

/* Only sizes below the PMD size count: PMD THPs are seen without a
 * program on every page allocation. */
Test(mthp_probe, sizes_below_pmd_only)
{
	char root[SCRATCH_DIR_MAX];
	const char *thp = "/sys/kernel/mm/transparent_hugepage";

	scratch_make(root, "mthp");
	scratch_write(root, "/sys/kernel/mm/transparent_hugepage/hpage_pmd_size", "2097152\n");
	scratch_write(root, "/sys/kernel/mm/transparent_hugepage/hugepages-2048kB/enabled",
		      "always [inherit] madvise never\n");
	scratch_write(root, "/sys/kernel/mm/transparent_hugepage/hugepages-64kB/enabled",
		      "always inherit madvise [never]\n");
	rootfs_set(root);
	cr_assert_not(mthp_enabled(thp));
	scratch_write(root, "/sys/kernel/mm/transparent_hugepage/hugepages-64kB/enabled",
		      "always inherit [madvise] never\n");
	cr_assert(mthp_enabled(thp));
	rootfs_set("");
	cr_assert_eq(scratch_remove(root), 0);
}
