// SPDX-License-Identifier: GPL-2.0
#define _GNU_SOURCE
#include "act_fixture.h"

#include <criterion/criterion.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/log.h"
#include "common/rootfs.h"

#include "../support/scratch.h"

struct act_fixture fx;
uint64_t fx_now = 1000000;

static uint64_t fake_now(void)
{
	return fx_now;
}

void fx_file(const char *rel, const char *text)
{
	scratch_write(fx.root, rel, text);
}

static void put(const char *path, const char *s)
{
	FILE *f = fopen(path, "w");

	cr_assert_not_null(f, "%s", path);
	fputs(s, f);
	fclose(f);
}

/* The kernel's side of memoryN/state: the zone follows the online value. */
static void play_block_state(const char *path, const char *value)
{
	static const char *const zones[][2] = {{"online_nosplit", "NoSplit"},
					       {"online_nomerge", "NoMerge"},
					       {"online_movable", "Movable"}};
	char vz[PATH_MAX];

	put(path, strncmp(value, "online", 6) ? "offline\n" : "online\n");
	snprintf(vz, sizeof(vz), "%s", path);
	strcpy(strrchr(vz, '/'), "/valid_zones");
	for (size_t i = 0; i < 3; i++)
		if (!strcmp(value, zones[i][0]))
			put(vz, zones[i][1]);
	if (!strcmp(value, "offline"))
		put(vz, "Movable NoSplit NoMerge");
}

static uint64_t get_u64(const char *rel, uint64_t index)
{
	char path[PATH_MAX];
	uint64_t v = 0;
	int fd;

	snprintf(path, sizeof(path), "%s%s", fx.root, rel);
	fd = open(path, O_RDONLY);
	if (fd >= 0 && pread(fd, &v, sizeof(v), (off_t)(index * sizeof(v))) != sizeof(v))
		v = 0;
	if (fd >= 0)
		close(fd);
	return v;
}

/* smaps after a split of [start, end): its PMD-mapped THPs there are gone. */
static void play_split_smaps(uint64_t start, uint64_t end)
{
	char path[PATH_MAX], *line = NULL, out[8192];
	unsigned long long vs = 0, ve = 0, kb;
	size_t cap = 0, n = 0;
	FILE *f;

	snprintf(path, sizeof(path), "%s/proc/4242/smaps", fx.root);
	f = fopen(path, "r");
	if (!f)
		return;
	while (getline(&line, &cap, f) > 0 && n < sizeof(out)) {
		uint64_t lo, hi, cut;

		if (sscanf(line, "%llx-%llx ", &vs, &ve) == 2 ||
		    sscanf(line, "AnonHugePages: %llu", &kb) != 1) {
			n += (size_t)snprintf(out + n, sizeof(out) - n, "%s", line);
			continue;
		}
		lo = vs > start ? vs : start;
		hi = ve < end ? ve : end;
		cut = hi > lo ? (hi - lo) >> 10 : 0;
		n += (size_t)snprintf(out + n, sizeof(out) - n, "AnonHugePages: %8llu kB\n",
				      kb > cut ? kb - cut : 0);
	}
	free(line);
	fclose(f);
	fx_file("/proc/4242/smaps", out);
}

/* The kernel's side of "pid,start,end": every page mapped in the range
 * is a base page after it (vmstat as fx.split_vmstat says). */
static void play_split(const char *cmd)
{
	unsigned long long start, end;
	int pid;

	if (fx.split_vmstat[0])
		fx_file("/proc/vmstat", fx.split_vmstat);
	if (fx.split_keeps_thps || sscanf(cmd, "%d,%llx,%llx", &pid, &start, &end) != 3 ||
	    pid != FIX_PID)
		return;
	play_split_smaps(start, end);
	for (uint64_t a = start & ~4095ULL; a < end; a += 4096) {
		uint64_t pm = get_u64("/proc/4242/pagemap", a / 4096);

		if (pm & PM_PRESENT)
			fx_put_u64("/proc/kpageflags", pm & ((1ULL << 55) - 1), 0);
	}
}

static int record_write(const char *path, const char *s, void *ctx)
{
	const char *rel = path + strlen(fx.root);
	size_t off = strlen(fx.writes);

	(void)ctx;
	cr_assert(!strncmp(path, fx.root, strlen(fx.root)), "write outside the root: %s", path);
	snprintf(fx.writes + off, sizeof(fx.writes) - off, "%s=%s\n", rel, s);
	if (fx.fail_path[0] && !strcmp(rel, fx.fail_path)) {
		fx.fail_count++;
		return -fx.fail_err;
	}
	if (strstr(rel, "/sys/devices/system/memory/memory"))
		play_block_state(path, s);
	else
		put(path, s);
	if (!strcmp(rel, "/sys/kernel/debug/split_huge_pages"))
		play_split(s);
	return 1;
}

static void make_block(int id, bool online, const char *zones)
{
	char rel[128];

	snprintf(rel, sizeof(rel), "/sys/devices/system/memory/memory%d/state", id);
	fx_file(rel, online ? "online\n" : "offline\n");
	snprintf(rel, sizeof(rel), "/sys/devices/system/memory/memory%d/valid_zones", id);
	fx_file(rel, zones);
}

static const char zoneinfo[] = "Node 0, zone      DMA\n  pages free     3840\n"
			       "        present  4095\n"
			       "Node 0, zone    DMA32\n  pages free     200000\n"
			       "Node 0, zone   Normal\n  pages free     2000000\n"
			       "        present  4000000\n"
			       "Node 0, zone  Movable\n  pages free     100000\n"
			       "Node 0, zone  NoSplit\n  pages free     60000\n"
			       "        order    9\n"
			       "Node 0, zone  NoMerge\n  pages free     30000\n"
			       "        order    9\n";

void fx_task_smaps(void)
{
	fx_file("/proc/4242/smaps",
		"55d0c0000000-55d0c0021000 rw-p 00000000 00:00 0    [heap]\n"
		"Rss:                 132 kB\nAnonymous:           132 kB\n"
		"AnonHugePages:         0 kB\nTHPeligible:    0\n"
		"7f0000000000-7f0000400000 rw-p 00000000 00:00 0 \n"
		"Rss:                4096 kB\nAnonymous:          4096 kB\n"
		"AnonHugePages:      4096 kB\nTHPeligible:    1\n"
		"7f1000000000-7f1000800000 rw-p 00000000 00:00 0 \n"
		"Rss:                8192 kB\nAnonymous:          8192 kB\n"
		"AnonHugePages:      2048 kB\nTHPeligible:    1\n"
		"VmFlags: rd wr mr mw me ac sd hg\n"
		"7f1800000000-7f1800400000 rw-p 00000000 00:00 0 \n"
		"Rss:                4096 kB\nAnonymous:          4096 kB\n"
		"AnonHugePages:         0 kB\nTHPeligible:    0\n"
		"VmFlags: rd wr mr mw me ac sd nh\n"
		"7f2000000000-7f2000200000 r-xp 00000000 08:01 1234 /usr/lib/libc.so.6\n"
		"Rss:                 900 kB\nAnonymous:             0 kB\n"
		"AnonHugePages:         0 kB\nTHPeligible:    0\n");
}

static void make_tree(void)
{
	fx_file("/proc/zoneinfo", zoneinfo);
	fx_file("/proc/vmstat", "nr_free_pages 2393840\npgalloc_nosplit 5120\n"
				"pgalloc_nomerge 2048\nthp_shatter_page 7\n"
				"thp_shatter_page_failed 1\nthp_shatter_page_discarded 0\n"
				"thp_hvo_page 10\n");
	fx_file("/proc/meminfo", "MemTotal:       24000000 kB\nMemFree:         9575360 kB\n");
	fx_file("/sys/devices/system/memory/block_size_bytes", "8000000\n");
	make_block(0, true, "DMA32");
	make_block(1, true, "Normal");
	for (int i = 2; i <= 5; i++)
		make_block(i, true, "Movable");
	make_block(6, true, "NoSplit");
	make_block(7, true, "NoSplit");
	make_block(8, false, "Normal Movable NoSplit NoMerge");
	make_block(9, true, "NoMerge");
	make_block(10, false, "Normal");
	fx_file("/sys/fs/cgroup/cgroup.procs", "1\n");
	fx_file("/sys/fs/cgroup/taod.service/cgroup.procs", "77\n");
	fx_file("/sys/fs/cgroup/app/a/memory.thp_shatter", "");
	fx_file("/sys/fs/cgroup/app/a/memory.thp_zones", "nosplit nomerge\n");
	fx_file("/sys/fs/cgroup/app/a/memory.stat",
		"anon 104857600\nanon_thp 62914560\nthp_split_page 3\nthp_shatter_page 2\n"
		"nosplit_thp 41943040\nnomerge_thp 20971520\n");
	fx_file("/sys/fs/cgroup/app/a/cgroup.procs", "4242\n");
	fx_file("/sys/fs/cgroup/app/b/memory.thp_zones", "nosplit nomerge\n");
	fx_file("/sys/fs/cgroup/app/b/memory.thp_shatter", "");
	fx_file("/proc/4242/cgroup", "0::/app/a\n");
	fx_task_smaps();
	fx_file("/sys/kernel/debug/split_huge_pages", "");
}

void fx_setup(void)
{
	memset(&fx, 0, sizeof(fx));
	log_set_max_level(LOG_WARNING); /* the audit notices would flood the output */
	scratch_make(fx.root, "act");
	make_tree();
	rootfs_set(fx.root);
	rootfs_set_write_hook(record_write, NULL);
	config_defaults(&fx.cfg);
	fx.cfg.enforce.mode = ACT_MODE_ENFORCE;
	fx.cfg.enforce.actions_per_minute = 100;
	fx.cfg.enforce.shatter_bytes_per_minute = 1ULL << 30;
	fx.cfg.enforce.allowlist[0] = '\0';
	fx.cfg.enforce.zone_headroom = 0;
	snprintf(fx.cfg.enforce.audit_log, sizeof(fx.cfg.enforce.audit_log), "%s/audit/a.jsonl",
		 fx.root);
	fx.tree.version = 2;
	snprintf(fx.tree.mount, sizeof(fx.tree.mount), "%s/sys/fs/cgroup", fx.root);
	snprintf(fx.tree.self, sizeof(fx.tree.self), "/taod.service");
}

void fx_open(const struct act_backend_ops *be)
{
	cr_assert_eq(actor_open(&fx.actor, &fx.cfg.enforce, &fx.cfg.k, &fx.tree, be), 0);
	actor_set_clock(fx.actor, fake_now);
}

void fx_teardown(void)
{
	actor_close(fx.actor);
	fx.actor = NULL;
	rootfs_set_write_hook(NULL, NULL);
	rootfs_set("/");
	cr_assert_eq(scratch_remove(fx.root), 0, "removing %s", fx.root);
}

void fx_fail(const char *rel, int err)
{
	snprintf(fx.fail_path, sizeof(fx.fail_path), "%s", rel);
	fx.fail_err = err;
}

static char *snap;
static size_t snap_len;

static int snap_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	char text[16384] = "";
	FILE *f;

	(void)st;
	(void)ftw;
	if (strstr(path, "/audit"))
		return 0; /* the audit log is ours, not the kernel's */
	if (flag == FTW_F) {
		f = fopen(path, "r");
		if (f) {
			text[fread(text, 1, sizeof(text) - 1, f)] = '\0';
			fclose(f);
		}
	}
	snap = realloc(snap, snap_len + strlen(path) + strlen(text) + 4);
	snap_len += (size_t)sprintf(snap + snap_len, "%s\n%s\n", path, text);
	return 0;
}

char *fx_snapshot(void)
{
	snap = NULL;
	snap_len = 0;
	nftw(fx.root, snap_entry, 16, FTW_PHYS);
	return snap;
}

struct action_request fx_req(enum action_kind kind, const char *cgroup, pid_t pid, uint64_t bytes)
{
	struct action_request r = {.kind = kind, .pid = pid, .bytes = bytes};

	r.cgroup = cgroup; /* borrowed, as decide's are */
	snprintf(r.policy, sizeof(r.policy), "test");
	snprintf(r.evidence, sizeof(r.evidence), "split_ratio=0.9 over 60s");
	return r;
}

enum action_result fx_submit(enum action_kind kind, const char *cgroup, pid_t pid, uint64_t bytes,
			     struct action_record *rec)
{
	struct action_request r = fx_req(kind, cgroup, pid, bytes);

	return actor_submit(fx.actor, &r, rec);
}

void fx_put_u64(const char *rel, uint64_t index, uint64_t v)
{
	char path[PATH_MAX];
	int fd;

	snprintf(path, sizeof(path), "%s%s", fx.root, rel);
	fd = open(path, O_WRONLY | O_CREAT, 0644);
	cr_assert_geq(fd, 0, "%s", path);
	cr_assert_eq(pwrite(fd, &v, sizeof(v), (off_t)(index * sizeof(v))), (ssize_t)sizeof(v));
	close(fd);
}

void fx_map_page(uint64_t addr, uint64_t pfn, bool thp)
{
	fx_put_u64("/proc/4242/pagemap", addr / 4096, PM_PRESENT | pfn);
	fx_put_u64("/proc/kpageflags", pfn, thp ? KPF_THP | KPF_ANON : 0);
}

void fx_map_file_page(uint64_t addr, uint64_t pfn)
{
	fx_put_u64("/proc/4242/pagemap", addr / 4096, PM_PRESENT | pfn);
	fx_put_u64("/proc/kpageflags", pfn, KPF_THP);
}

void fx_map_whole(uint64_t addr, uint64_t pfn)
{
	for (uint64_t i = 0; i < 512; i++)
		fx_put_u64("/proc/4242/pagemap", addr / 4096 + i, PM_PRESENT | (pfn + i));
	fx_put_u64("/proc/kpageflags", pfn, KPF_THP | KPF_ANON);
}

int fx_no_stats(const struct act_ctx *c, struct act_stats *out)
{
	(void)c;
	memset(out, 0, sizeof(*out));
	return 0;
}
