// SPDX-License-Identifier: GPL-2.0
#include <criterion/criterion.h>
#include <errno.h>
#include <stdlib.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "observe/huge_zero_probe.h"

#define KPF_ZERO_PAGE 24

static int read_text(const char *path, char *buf, size_t len)
{
	FILE *f = fopen(path, "r");
	size_t n;

	if (!f)
		return -1;
	n = fread(buf, 1, len - 1, f);
	fclose(f);
	buf[n] = '\0';
	return 0;
}

/* The kernel's own word on a PFN: /proc/kpageflags. */
static uint64_t kpageflags(uint64_t pfn)
{
	uint64_t flags = 0;
	int fd = open("/proc/kpageflags", O_RDONLY);

	cr_assert_geq(fd, 0);
	cr_assert_eq(pread(fd, &flags, sizeof(flags), (off_t)(pfn * sizeof(flags))),
		     (ssize_t)sizeof(flags));
	close(fd);
	return flags;
}

static uint64_t vmstat(const char *name)
{
	char line[128];
	unsigned long long v = 0;
	FILE *f = fopen("/proc/vmstat", "r");
	size_t n = strlen(name);

	cr_assert_not_null(f);
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, name, n) && line[n] == ' ')
			v = strtoull(line + n + 1, NULL, 10);
	fclose(f);
	return v;
}

Test(huge_zero_probe, finds_the_huge_zero_page_or_says_there_is_none)
{
	char enabled[128] = "", zero[16] = "";
	struct huge_zero_probe z, again;
	uint64_t flags;
	int r;

	read_text("/sys/kernel/mm/transparent_hugepage/enabled", enabled, sizeof(enabled));
	read_text("/sys/kernel/mm/transparent_hugepage/use_zero_page", zero, sizeof(zero));
	if (strstr(enabled, "[never]") || zero[0] != '1' || geteuid() != 0) {
		cr_skip_test("needs root, THPs on and use_zero_page = 1");
		return;
	}
	r = huge_zero_probe_open(&z);
	if (r) {
		/* Some kernels (this 6.18 among them) give read faults a THP of
		 * their own: then no huge zero page exists, and none is claimed. */
		cr_assert_eq(r, -ENOENT, "%s", strerror(-r));
		cr_assert_eq(vmstat("thp_zero_page_alloc"), 0);
		cr_assert_null(z.map);
		return;
	}
	cr_assert_eq(z.pfn % 512, 0, "pfn %llu", (unsigned long long)z.pfn);
	flags = kpageflags(z.pfn);
	cr_assert(!flags || (flags & (1ULL << KPF_ZERO_PAGE)), "pfn %llu flags %#llx",
		  (unsigned long long)z.pfn, (unsigned long long)flags);
	/* While held, the huge zero page does not move. */
	cr_assert_eq(huge_zero_probe_open(&again), 0);
	cr_assert_eq(again.pfn, z.pfn);
	huge_zero_probe_close(&again);
	huge_zero_probe_close(&z);
	cr_assert_null(z.map);
}
