// SPDX-License-Identifier: GPL-2.0
/*
 * Which 2 MiB chunks of a task's mapping hold pages of a THP. smaps counts
 * only PMD-mapped THPs (AnonHugePages), but an abuser's partly unmapped THP
 * is PTE-mapped and still pins its whole 2 MiB: only the page tables say
 * it is there. /proc/PID/pagemap gives each mapped page's PFN and
 * /proc/kpageflags whether that PFN is part of a THP, and an anonymous
 * one: a file's large folios (page cache, shared with every other mapper
 * of the file) are not the tenant's to split, nor to count.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <unistd.h>

#include "thp_chunks.h"
#include "act/act_backend.h"
#include "common/offload.h"
#include "common/rootfs.h"

#define PM_PFN_MASK ((1ULL << 55) - 1)
#define PM_PRESENT  (1ULL << 63)
#define KPF_ANON    12
#define KPF_THP	    22
#define CHUNK_PAGES (THP_BYTES / 4096)

int thp_pagemaps_open(pid_t pid, struct thp_pagemaps *m)
{
	char rel[64], pm[PATH_MAX], kf[PATH_MAX];
	int e;

	m->pagemap = m->kpageflags = -1;
	m->chunks_left = THP_SCAN_MAX_CHUNKS;
	snprintf(rel, sizeof(rel), "/proc/%d/pagemap", (int)pid);
	if (rootfs_path(pm, sizeof(pm), rel) || rootfs_path(kf, sizeof(kf), "/proc/kpageflags"))
		return -ENAMETOOLONG;
	m->pagemap = open(pm, O_RDONLY | O_CLOEXEC);
	if (m->pagemap < 0)
		return -errno;
	m->kpageflags = open(kf, O_RDONLY | O_CLOEXEC);
	if (m->kpageflags >= 0)
		return 0;
	e = errno;
	close(m->pagemap);
	m->pagemap = -1;
	return -e;
}

void thp_pagemaps_close(struct thp_pagemaps *m)
{
	if (m->pagemap >= 0)
		close(m->pagemap);
	if (m->kpageflags >= 0)
		close(m->kpageflags);
	m->pagemap = m->kpageflags = -1;
}

static bool pfn_is_thp(const struct thp_pagemaps *m, uint64_t pfn)
{
	const uint64_t anon_thp = (1ULL << KPF_THP) | (1ULL << KPF_ANON);
	uint64_t flags = 0;

	if (pread(m->kpageflags, &flags, sizeof(flags), (off_t)(pfn * sizeof(flags))) !=
	    sizeof(flags))
		return false;
	return (flags & anon_thp) == anon_thp;
}

/* All 512 pages mapped, in PFN order from a 2 MiB-aligned PFN: one THP, whole. */
static bool maps_one_whole_thp(const uint64_t *pm, size_t n)
{
	uint64_t pfn0 = pm[0] & PM_PFN_MASK;

	if (n != CHUNK_PAGES || !(pm[0] & PM_PRESENT) || pfn0 % CHUNK_PAGES)
		return false;
	for (size_t i = 1; i < n; i++)
		if (!(pm[i] & PM_PRESENT) || (pm[i] & PM_PFN_MASK) != pfn0 + i)
			return false;
	return true;
}

/*
 * The address of the first page of [from, to) (within one chunk) that is a
 * THP's, 0 if none; *whole when the chunk maps one THP entirely. -EPERM
 * when pages are present but their PFNs hidden (no CAP_SYS_ADMIN), -errno
 * when pagemap cannot be read.
 */
static int64_t chunk_thp_page(const struct thp_pagemaps *m, uint64_t from, uint64_t to, bool *whole,
			      uint64_t *present)
{
	uint64_t pm[CHUNK_PAGES];
	size_t n = (size_t)((to - from) / 4096);
	ssize_t got =
	    pread(m->pagemap, pm, n * sizeof(pm[0]), (off_t)(from / 4096 * sizeof(pm[0])));

	if (got < 0)
		return -errno;
	n = (size_t)got / sizeof(pm[0]);
	for (size_t i = 0; i < n; i++)
		*present += !!(pm[i] & PM_PRESENT);
	*whole = maps_one_whole_thp(pm, n);
	if (*whole)
		return pfn_is_thp(m, pm[0] & PM_PFN_MASK) ? (int64_t)from : 0;
	for (size_t i = 0; i < n; i++) {
		if (!(pm[i] & PM_PRESENT))
			continue;
		if (!(pm[i] & PM_PFN_MASK))
			return -EPERM;
		if (pfn_is_thp(m, pm[i] & PM_PFN_MASK))
			return (int64_t)(from + i * 4096);
	}
	return 0;
}

int thp_chunk_look(struct thp_pagemaps *m, uint64_t from, uint64_t to, struct thp_chunk_view *v)
{
	int64_t page;

	if (!m->chunks_left)
		return -E2BIG;
	if (offload_time_up()) /* a pagemap read takes the task's mmap lock */
		return -ETIME;
	m->chunks_left--;
	v->present = 0;
	page = chunk_thp_page(m, from, to, &v->whole, &v->present);
	if (page < 0)
		return (int)page;
	v->thp_page = (uint64_t)page;
	v->whole = v->whole && page;
	return 0;
}

int thp_chunks_scan(struct thp_pagemaps *m, uint64_t start, uint64_t end, uint64_t present_max,
		    enum thp_chunk_kind want, thp_chunk_fn fn, void *ctx)
{
	uint64_t present = 0;

	start &= ~4095ULL;
	for (uint64_t chunk = start & ~(THP_BYTES - 1); chunk < end; chunk += THP_BYTES) {
		uint64_t from = chunk > start ? chunk : start;
		uint64_t to = chunk + THP_BYTES < end ? chunk + THP_BYTES : end;
		struct thp_chunk_view v;
		int r;

		if (present_max && present >= present_max)
			return 0;
		r = thp_chunk_look(m, from, to, &v);
		if (r)
			return r;
		present += v.present;
		if (!v.thp_page || v.whole != (want == THP_CHUNK_WHOLE))
			continue;
		r = fn(ctx, chunk, v.thp_page);
		if (r)
			return r > 0 ? 0 : r;
	}
	return 0;
}
