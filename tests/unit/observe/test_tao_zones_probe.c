// SPDX-License-Identifier: GPL-2.0
/*
 * The boot-zone probe on /proc/zoneinfo captured byte for byte from the TAO
 * lab kernel (6.6.50, make vmtest-tao): booted with nosplit=128M,4
 * nomerge=256M,9 (zones made), and with nosplit=256M,9 nomerge=512M,4,
 * which the kernel refuses: it drops both zones but still lists them, with
 * 0 pages.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "observe/kernel_probe.h"
#include "common/rootfs.h"

#include "../support/scratch.h"

static char root[SCRATCH_DIR_MAX];
static char *text;

/* unit/observe/data/NAME (the unit tests run in tests/) as the root's zoneinfo. */
static void boot(const char *name)
{
	char path[256];

	snprintf(path, sizeof(path), "unit/observe/data/%s", name);
	text = scratch_read(path);
	scratch_make(root, "taozones");
	scratch_write(root, "/proc/zoneinfo", text);
	rootfs_set(root);
}

static void done(void)
{
	rootfs_set("/");
	free(text);
	cr_assert_eq(scratch_remove(root), 0);
}

TestSuite(tao_zones_probe, .fini = done);

Test(tao_zones_probe, zones_the_kernel_made)
{
	struct taod_config cfg;
	struct kernel_info k;

	boot("zoneinfo-tao-made");
	config_defaults(&cfg);
	kernel_probe(&cfg, NULL, &k);
	cr_assert_eq(k.kind, KERNEL_TAO, "%s", k.why);
	cr_assert(k.feat[TAO_BOOT_ZONES].present, "%s", k.feat[TAO_BOOT_ZONES].why);
	cr_assert_str_eq(k.why, "/proc/zoneinfo lists zone NoSplit and NoMerge");
	/* 128M; 256M less the 32 pages of the hole below 4 GiB. */
	cr_assert_eq(zoneinfo_zone_value(text, "NoSplit", "present", true), 32768);
	cr_assert_eq(zoneinfo_zone_value(text, "NoMerge", "present", true), 65504);
	cr_assert_eq(zoneinfo_zone_value(text, "NoSplit", "order", false), 4);
	cr_assert_eq(zoneinfo_zone_value(text, "NoMerge", "order", false), 9);
	cr_assert_eq(zoneinfo_zone_value(text, "DMA32", "order", false), 0);
	cr_assert_eq(zoneinfo_zone_value(text, "NoSplit", "nosuchline", true), -1);
}

/* Named, empty: no zone, so no TAO kernel to act on, and the why says so. */
Test(tao_zones_probe, refused_zones_are_none)
{
	struct taod_config cfg;
	struct kernel_info k;

	boot("zoneinfo-tao-refused");
	config_defaults(&cfg);
	cr_assert(zoneinfo_has_zone(text, "NoSplit") && zoneinfo_has_zone(text, "NoMerge"));
	cr_assert_eq(zoneinfo_zone_value(text, "NoMerge", "present", true), 0);
	kernel_probe(&cfg, NULL, &k);
	cr_assert_eq(k.kind, KERNEL_STOCK, "%s", k.why);
	cr_assert_not(k.feat[TAO_BOOT_ZONES].present);
	cr_assert(k.feat[TAO_BOOT_ZONES].named);
	cr_assert(strstr(k.why, "lists NoSplit and NoMerge with 0 pages: the kernel made no policy "
				"zone"),
		  "%s", k.why);
}
