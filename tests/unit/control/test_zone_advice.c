// SPDX-License-Identifier: GPL-2.0
/*
 * The boot-time zone recommendation and the kernel's rules for keeping
 * nosplit=/nomerge= (parse_zone_order), the command line they are parsed
 * from, and the grub drop-in they are written to.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <string.h>

#include "act/tao/cmdline_dropin.h"
#include "control/zone_advice.h"

#define MIB (1ULL << 20)
#define GIB (1ULL << 30)

static struct zone_advice_in in;

static void setup(void)
{
	memset(&in, 0, sizeof(in));
	in.mem_bytes = 16 * GIB;
	in.pageblock_order = 9;
	in.held_bytes = 512 * MIB;
	in.shortfall_bytes = 256 * MIB;
	in.headroom = 256 * MIB;
	in.cgroups = 3;
	in.guaranteed = 2;
}

TestSuite(zone_advice, .init = setup);

static int check(uint64_t ns_bytes, int ns_order, uint64_t nm_bytes, int nm_order, char *why)
{
	struct zone_param ns = {.bytes = ns_bytes, .order = ns_order};
	struct zone_param nm = {.bytes = nm_bytes, .order = nm_order};

	return zone_params_check(&ns, &nm, 9, 16 * GIB, why, 192);
}

Test(zone_advice, the_kernels_rules)
{
	char why[192];

	cr_assert_eq(check(GIB, 4, 2 * GIB, 9, why), 0);
	cr_assert_eq(check(GIB, 9, GIB, 9, why), -EINVAL);
	cr_assert(strstr(why, "the kernel drops both zones"), "%s", why);
	cr_assert_eq(check(GIB, 1, 0, 0, why), -EINVAL);
	cr_assert(strstr(why, "outside 2..10"), "%s", why);
	cr_assert_eq(check(0, 0, GIB, 10, why), -EINVAL);
	cr_assert(strstr(why, "above pageblock_order 9"), "%s", why);
	cr_assert_eq(check(17 * GIB, 4, 0, 0, why), -EINVAL);
	cr_assert_eq(check(10 * GIB, 4, 10 * GIB, 9, why), -EINVAL);
	cr_assert(strstr(why, "above memory"), "%s", why);
}

Test(zone_advice, demand_split_by_the_order_mix)
{
	struct zone_advice a;

	in.order_allocs[4] = 2000; /* 64 KiB: 20 % of allocations, 1/65 of the bytes */
	in.order_allocs[9] = 8000;
	cr_assert_eq(zone_advise(&in, &a), 0, "%s", a.nosplit.why);
	cr_assert_eq(a.nosplit.order, 4);
	cr_assert_eq(a.nomerge.order, 9);
	cr_assert(strstr(a.nosplit.why, "order 4 has 20% of THP allocations"), "%s", a.nosplit.why);
	cr_assert_eq(a.nosplit.bytes % zone_rounding_bytes(), 0);
	cr_assert_eq(a.nomerge.bytes % zone_rounding_bytes(), 0);
	cr_assert(a.nosplit.bytes + a.nomerge.bytes >= GIB);
	cr_assert(a.nomerge.bytes > 30 * a.nosplit.bytes);
	cr_assert(strstr(a.cmdline, "nosplit=") && strstr(a.cmdline, ",4 nomerge="), "%s",
		  a.cmdline);
}

Test(zone_advice, a_stalled_zone_grows_and_none_exceeds_half_of_memory)
{
	struct zone_advice a;

	in.nomerge = (struct zone_use){
	    .present = true, .present_bytes = 4 * GIB, .free_bytes = 2 * GIB, .allocstall = 5};
	cr_assert_eq(zone_advise(&in, &a), 0);
	cr_assert_eq(a.nomerge.bytes, 5 * GIB);
	cr_assert(strstr(a.nomerge.why, "under pressure (allocstall 5"), "%s", a.nomerge.why);
	in.nomerge.present_bytes = 12 * GIB;
	cr_assert_eq(zone_advise(&in, &a), 0);
	cr_assert(a.nosplit.bytes + a.nomerge.bytes <= 8 * GIB);
	cr_assert(strstr(a.nomerge.why, "capped at half of memory"), "%s", a.nomerge.why);
}

/* An idle TAO guest booted with 256M/512M and no guarantee: the zones
 * held 4 MiB and 40 MiB, and the recommendation used to be those
 * (nosplit=4M,4 nomerge=40M,9), taking THPs from every tenant at the next
 * boot. With nothing held or promised, ever in the window, the boot sizes
 * stay. */
Test(zone_advice, an_idle_machine_keeps_the_boot_sizes)
{
	struct zone_advice a;

	in.held_bytes = in.shortfall_bytes = 0;
	in.guaranteed = 0;
	in.boot_nosplit = (struct zone_param){.bytes = 256 * MIB, .order = 4};
	in.boot_nomerge = (struct zone_param){.bytes = 512 * MIB, .order = 9};
	in.nosplit =
	    (struct zone_use){.present = true, .present_bytes = 256 * MIB, .free_bytes = 252 * MIB};
	in.nomerge =
	    (struct zone_use){.present = true, .present_bytes = 512 * MIB, .free_bytes = 472 * MIB};
	cr_assert_eq(zone_advise(&in, &a), 0, "%s", a.nosplit.why);
	cr_assert_str_eq(a.cmdline, "nosplit=256M,4 nomerge=512M,9");
	cr_assert(strstr(a.nomerge.why, "none in the window: boot size kept"), "%s", a.nomerge.why);
}

/* Demand is every tenant's: THPs held by cgroups without any guarantee
 * count, and the peak they held over the window is the floor even when
 * they hold less now. */
Test(zone_advice, demand_is_every_tenants_and_never_below_the_windows_peak)
{
	struct zone_advice a;

	in.headroom = 0;
	in.shortfall_bytes = 0;
	in.guaranteed = 0;
	in.held_bytes = 300 * MIB; /* no guarantee anywhere */
	cr_assert_eq(zone_advise(&in, &a), 0, "%s", a.nosplit.why);
	cr_assert_geq(a.nosplit.bytes + a.nomerge.bytes, 300 * MIB, "%s", a.cmdline);
	cr_assert(strstr(a.nomerge.why, "demand 300 MiB (THPs held by 3 cgroups 300 MiB, "
					"guarantees' shortfall 0 MiB, peak 0 MiB"),
		  "%s", a.nomerge.why);
	in.held_bytes = 20 * MIB; /* they gave most back, after holding 900 MiB */
	in.peak_bytes = 900 * MIB;
	cr_assert_eq(zone_advise(&in, &a), 0, "%s", a.nosplit.why);
	cr_assert_geq(a.nosplit.bytes + a.nomerge.bytes, 900 * MIB, "%s", a.cmdline);
	cr_assert(strstr(a.nomerge.why, "demand 900 MiB"), "%s", a.nomerge.why);
	/* No THP below order 9 measured: NoSplit keeps its boot 128 MiB (it
	 * held 1 MiB, and used to be cut to 4 MiB). */
	in.boot_nosplit = (struct zone_param){.bytes = 128 * MIB, .order = 4};
	in.nosplit =
	    (struct zone_use){.present = true, .present_bytes = 128 * MIB, .free_bytes = 127 * MIB};
	cr_assert_eq(zone_advise(&in, &a), 0, "%s", a.nosplit.why);
	cr_assert_eq(a.nosplit.bytes, 128 * MIB, "%s", a.nosplit.why);
	cr_assert(strstr(a.nosplit.why, "no THP of its order measured: boot size kept"), "%s",
		  a.nosplit.why);
}

Test(zone_advice, cmdline_values_as_the_kernel_parses_them)
{
	struct zone_param ns, nm;

	zone_cmdline_parse("ro quiet nosplit=1G,4 nomerge=25%,9\n", 16 * GIB, &ns, &nm);
	cr_assert_eq(ns.bytes, GIB);
	cr_assert_eq(ns.order, 4);
	cr_assert_eq(nm.bytes, 4 * GIB);
	cr_assert_eq(nm.order, 9);
	zone_cmdline_parse("nosplit=1G nomerge=x,9", 16 * GIB, &ns, &nm);
	cr_assert_eq(ns.bytes, 0); /* no order: the kernel ignores it */
	cr_assert_eq(nm.bytes, 0);
}

/* A value no int or share holds is no value: never read as another one. */
Test(zone_advice, cmdline_parse_refuses_what_would_wrap)
{
	struct zone_param ns, nm;

	zone_cmdline_parse("nosplit=512M,4294967300 nomerge=101%,9", 16 * GIB, &ns, &nm);
	cr_assert_eq(ns.bytes, 0, "order 2^32 + 4 read as %d", ns.order);
	cr_assert_eq(nm.bytes, 0);
	zone_cmdline_parse("nomerge=18446744073709551617%,9", 16 * GIB, &ns, &nm);
	cr_assert_eq(nm.bytes, 0);
}

Test(zone_advice, dropin_text_refuses_what_the_shell_would_read)
{
	char buf[512];

	cr_assert_eq(cmdline_dropin_text("nosplit=512M,4 nomerge=1536M,9", buf, sizeof(buf)), 0);
	cr_assert_str_eq(
	    strstr(buf, "GRUB_CMDLINE_LINUX="),
	    "GRUB_CMDLINE_LINUX=\"$GRUB_CMDLINE_LINUX nosplit=512M,4 nomerge=1536M,9\"\n");
	cr_assert_eq(cmdline_dropin_text("nosplit=1G,4\"; rm -rf /", buf, sizeof(buf)), -EINVAL);
	cr_assert_eq(cmdline_dropin_text("$(reboot)", buf, sizeof(buf)), -EINVAL);
	cr_assert_eq(cmdline_dropin_text("", buf, sizeof(buf)), -EINVAL);
	cr_assert_eq(cmdline_dropin_text("nosplit=1G,4", buf, 16), -ENOSPC);
}
