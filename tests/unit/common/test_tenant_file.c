// SPDX-License-Identifier: GPL-2.0
/* Files a tenant controls: opened without blocking, inside its root. */
#include <criterion/criterion.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/tenant_file.h"

static char dir[] = "/tmp/taod-tenant-XXXXXX";

static void put(const char *name, const char *text)
{
	char p[PATH_MAX];
	FILE *f;

	snprintf(p, sizeof(p), "%s/%s", dir, name);
	f = fopen(p, "w");
	cr_assert(f);
	fputs(text, f);
	fclose(f);
}

static void setup(void)
{
	char p[PATH_MAX], t[PATH_MAX];

	cr_assert(mkdtemp(dir));
	put("lib.so", "0123456789");
	snprintf(p, sizeof(p), "%s/fifo (deleted)", dir);
	cr_assert_eq(mkfifo(p, 0600), 0);
	snprintf(p, sizeof(p), "%s/link", dir);
	snprintf(t, sizeof(t), "%s/lib.so", dir);
	cr_assert_eq(symlink(t, p), 0);
	snprintf(p, sizeof(p), "%s/root", dir);
	cr_assert_eq(mkdir(p, 0700), 0);
	snprintf(p, sizeof(p), "%s/root/sub", dir);
	cr_assert_eq(symlink("/", p), 0); /* absolute: the tenant's root, not taod's */
	put("root/outside.so", "abc");
}

static void teardown(void)
{
	char cmd[PATH_MAX + 16];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	cr_assert_eq(system(cmd), 0);
}

TestSuite(tenant_file, .init = setup, .fini = teardown);

static int open_rel(const char *root_rel, const char *path, uint64_t max)
{
	char root[PATH_MAX];

	snprintf(root, sizeof(root), "%s%s", dir, root_rel);
	return tenant_file_open(root, path, max);
}

Test(tenant_file, tenant_file_open_reads_a_regular_file)
{
	char buf[16] = "";
	int fd = open_rel("", "/lib.so", 1 << 20);

	cr_assert_geq(fd, 0, "%s", strerror(-fd));
	cr_assert_eq(read(fd, buf, sizeof(buf) - 1), 10);
	cr_assert_str_eq(buf, "0123456789");
	close(fd);
}

Test(tenant_file, tenant_file_open_refuses_a_fifo_without_blocking, .timeout = 5)
{
	cr_assert_eq(open_rel("", "/fifo (deleted)", 1 << 20), -EINVAL);
}

Test(tenant_file, tenant_file_open_refuses_a_symlink_and_a_device)
{
	cr_assert_eq(open_rel("", "/link", 1 << 20), -EINVAL);
	cr_assert_eq(tenant_file_open("/", "/dev/null", 1 << 20), -EINVAL);
	cr_assert_eq(open_rel("", "/", 1 << 20), -EINVAL); /* a directory */
}

Test(tenant_file, tenant_file_open_refuses_a_file_past_its_cap)
{
	cr_assert_eq(open_rel("", "/lib.so", 9), -EFBIG);
	cr_assert_eq(open_rel("", "/absent", 9), -ENOENT);
}

Test(tenant_file, tenant_file_open_stays_inside_the_root)
{
	char buf[8] = "";
	/* /sub -> / inside the tenant's root: its own /outside.so, where taod's
	 * root has none. */
	int fd = open_rel("/root", "/sub/outside.so", 1 << 20);

	cr_assert_geq(fd, 0, "%s", strerror(-fd));
	cr_assert_eq(read(fd, buf, sizeof(buf) - 1), 3);
	cr_assert_str_eq(buf, "abc");
	close(fd);
}

Test(tenant_file, tenant_file_open_follows_the_kernels_link_when_asked)
{
	int fd = tenant_file_open(NULL, "/proc/self/exe", 1ULL << 32);

	cr_assert_geq(fd, 0, "%s", strerror(-fd));
	close(fd);
}
