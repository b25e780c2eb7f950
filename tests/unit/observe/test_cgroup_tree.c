// SPDX-License-Identifier: GPL-2.0
#include <criterion/criterion.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/cgroup_dir.h"
#include "observe/cgroup_tree.h"
#include "observe/kernel_probe.h"
#include "common/rootfs.h"

#include "../support/scratch.h"

Test(cgroup_tree, proc_cgroup_v1_and_v2)
{
	const char *text =
	    "12:pids:/\n4:memory:/process_api/abc\n1:cpu,cpuacct:/x\n0::/user.slice/u\n";
	char out[256];

	cr_assert_eq(cgroup_of_proc_text(text, 1, out, sizeof(out)), 0);
	cr_assert_str_eq(out, "/process_api/abc");
	cr_assert_eq(cgroup_of_proc_text(text, 2, out, sizeof(out)), 0);
	cr_assert_str_eq(out, "/user.slice/u");
	cr_assert_neq(cgroup_of_proc_text("3:cpu:/\n", 1, out, sizeof(out)), 0);
	/* "memory" must be a whole controller name. */
	cr_assert_neq(cgroup_of_proc_text("3:memoryx:/y\n", 1, out, sizeof(out)), 0);
}

/* A line without its newline was cut short; a path that does not fit is not cut. */
Test(cgroup_tree, proc_cgroup_cut_or_overlong_lines_are_errors)
{
	char out[20];

	cr_assert_eq(cgroup_of_proc_text("0::/app/a", 2, out, sizeof(out)), -ENAMETOOLONG);
	cr_assert_eq(cgroup_of_proc_text("4:memory:/app/a", 1, out, sizeof(out)), -ENAMETOOLONG);
	cr_assert_eq(cgroup_of_proc_text("0::/app/abcdefghijklmno\n", 2, out, sizeof(out)),
		     -ENAMETOOLONG);
	cr_assert_eq(cgroup_of_proc_text("0::/app/abcdefghijklmn\n", 2, out, sizeof(out)), 0);
	cr_assert_str_eq(out, "/app/abcdefghijklmn");
}

struct seen {
	char paths[16][64];
	uint64_t ids[16];
	int n;
};

static int collect(void *ctx, uint64_t id, const char *rel, int atfd, const char *name)
{
	struct seen *s = ctx;

	(void)atfd;
	(void)name;
	snprintf(s->paths[s->n], sizeof(s->paths[0]), "%s", rel);
	s->ids[s->n++] = id;
	return 0;
}

static int find(const struct seen *s, const char *p)
{
	for (int i = 0; i < s->n; i++)
		if (!strcmp(s->paths[i], p))
			return i;
	return -1;
}

Test(cgroup_tree, detect_from_mounts_and_walk_fixture)
{
	char root[SCRATCH_DIR_MAX], path[512];
	struct taod_config cfg;
	struct cgroup_tree t;
	struct seen s = {0};
	struct stat st;
	char why[256] = "", *shown;

	scratch_make(root, "tree");
	scratch_mkdir(root, "/sys/fs/cgroup/memory/a/b");
	scratch_mkdir(root, "/sys/fs/cgroup/memory/c");
	scratch_mkdir(root, "/sys/fs/cgroup/unified");
	scratch_write(root, "/proc/self/mounts",
		      "cgroup2 /sys/fs/cgroup/unified cgroup2 rw,nosuid 0 0\n"
		      "cgroup /sys/fs/cgroup/memory cgroup rw,nosuid,memory 0 0\n");
	config_defaults(&cfg);
	rootfs_set(root);
	cr_assert_eq(cgroup_tree_detect(&t, &cfg, why, sizeof(why)), 0, "%s", why);
	cr_assert_eq(t.version, 1);
	snprintf(path, sizeof(path), "%s/sys/fs/cgroup/memory", root);
	cr_assert_str_eq(t.mount, path);

	cfg.cgroup_version = 2;
	cr_assert_eq(cgroup_tree_detect(&t, &cfg, why, sizeof(why)), 0, "%s", why);
	cr_assert_eq(t.version, 2);
	cfg.cgroup_version = 0;
	cgroup_tree_detect(&t, &cfg, why, sizeof(why));

	cr_assert_eq(cgroup_tree_walk(&t, collect, &s), 0);
	cr_assert_eq(s.n, 4);
	cr_assert_geq(find(&s, "/"), 0);
	cr_assert_geq(find(&s, "/a"), 0);
	cr_assert_geq(find(&s, "/c"), 0);
	cr_assert_geq(find(&s, "/a/b"), 0);
	snprintf(path, sizeof(path), "%s/sys/fs/cgroup/memory/a/b", root);
	stat(path, &st);
	cr_assert_eq(s.ids[find(&s, "/a/b")], st.st_ino, "id is the directory inode");
	shown = cgroup_file_shown(&t, "/a/b", "memory.stat");
	cr_assert(strstr(shown, "/sys/fs/cgroup/memory/a/b/memory.stat"), "%s", shown);
	free(shown);
	shown = cgroup_file_shown(&t, "/", "memory.stat");
	cr_assert(strstr(shown, "/sys/fs/cgroup/memory/memory.stat"), "%s", shown);
	free(shown);

	rootfs_set("/");
	cr_assert_eq(scratch_remove(root), 0);
}

/* A fixture root with /proc/self and a cgroup v2 root named in @cfg. */
static void self_fixture(char root[SCRATCH_DIR_MAX], struct taod_config *cfg)
{
	scratch_make(root, "self");
	scratch_mkdir(root, "/proc/self");
	scratch_mkdir(root, "/sys/fs/cgroup");
	config_defaults(cfg);
	snprintf(cfg->k.cgroup_root, sizeof(cfg->k.cgroup_root), "/sys/fs/cgroup");
	rootfs_set(root);
}

/* /proc/self/cgroup cuts a path of PATH_MAX or more: taod's own cgroup is
 * somewhere below the cut one, which one is unknown. */
Test(cgroup_tree, self_too_deep_for_proc_is_unknown)
{
	char root[SCRATCH_DIR_MAX], why[256] = "";
	static char text[PATH_MAX + 16];
	struct taod_config cfg;
	struct cgroup_tree t;

	self_fixture(root, &cfg);
	scratch_write(root, "/proc/self/cgroup", "0::/taod.service\n");
	cr_assert_eq(cgroup_tree_detect(&t, &cfg, why, sizeof(why)), 0, "%s", why);
	cr_assert_str_eq(t.self, "/taod.service");
	cr_assert_not(t.self_unknown);

	memset(text, 'a', sizeof(text));
	memcpy(text, "0::/", 4);
	snprintf(text + 3 + PATH_MAX - 1, 2, "\n"); /* a path of PATH_MAX - 1 bytes */
	scratch_write(root, "/proc/self/cgroup", text);
	cr_assert_eq(cgroup_tree_detect(&t, &cfg, why, sizeof(why)), 0, "%s", why);
	cr_assert(t.self_unknown);

	rootfs_set("/");
	cr_assert_eq(scratch_remove(root), 0);
}

Test(cgroup_tree, no_memory_mount_is_explained)
{
	char root[SCRATCH_DIR_MAX];
	struct taod_config cfg;
	struct cgroup_tree t;
	char why[256] = "";

	scratch_write(scratch_make(root, "tree"), "/proc/self/mounts", "proc /proc proc rw 0 0\n");
	config_defaults(&cfg);
	rootfs_set(root);
	cr_assert_neq(cgroup_tree_detect(&t, &cfg, why, sizeof(why)), 0);
	cr_assert(strstr(why, "no v1 or v2 memory cgroup mount"), "%s", why);
	rootfs_set("/");
	cr_assert_eq(scratch_remove(root), 0);
}

Test(kernel_probe, zoneinfo_zone_names)
{
	const char *zi = "Node 0, zone      DMA\n  pages free 3\nNode 0, zone  Movable\n"
			 "Node 0, zone  NoSplit\n  order 9\n";

	cr_assert(zoneinfo_has_zone(zi, "NoSplit"));
	cr_assert(zoneinfo_has_zone(zi, "Movable"));
	cr_assert_not(zoneinfo_has_zone(zi, "NoMerge"));
	cr_assert_not(zoneinfo_has_zone(zi, "NoSpl"));
}

/* taod moved: read again, its new cgroup is the protected one; a failed
 * read (out of fds, say) keeps the known one rather than "/". */
Test(cgroup_tree, self_is_read_again_and_a_failed_read_keeps_it)
{
	char root[SCRATCH_DIR_MAX], why[256] = "", path[300];
	struct taod_config cfg;
	struct cgroup_tree t;

	self_fixture(root, &cfg);
	scratch_write(root, "/proc/self/cgroup", "0::/taod.service\n");
	cr_assert_eq(cgroup_tree_detect(&t, &cfg, why, sizeof(why)), 0, "%s", why);
	cr_assert_not(cgroup_tree_read_self(&t));
	scratch_write(root, "/proc/self/cgroup", "0::/other.slice/taod.service\n");
	cr_assert(cgroup_tree_read_self(&t));
	cr_assert_str_eq(t.self, "/other.slice/taod.service");
	snprintf(path, sizeof(path), "%s/proc/self/cgroup", root);
	cr_assert_eq(unlink(path), 0);
	cr_assert_not(cgroup_tree_read_self(&t));
	cr_assert_str_eq(t.self, "/other.slice/taod.service");
	cr_assert_not(t.self_unknown);

	rootfs_set("/");
	cr_assert_eq(scratch_remove(root), 0);
}
