// SPDX-License-Identifier: GPL-2.0
/*
 * THP workload generator for taod's tests. Runs a sequence of steps over
 * a set of 2 MiB-aligned regions, e.g.
 *   thp_workload fault 8 partial 3 unmap-whole hold 1
 * and prints one JSON line with what it did and what the kernel gave.
 *
 * Steps:
 *   fault N        map N regions with MADV_HUGEPAGE and touch them (THPs)
 *   smallfault N   map N regions with no THP advice and fault them page by
 *                  page: base pages where THP "enabled" is madvise, and
 *                  khugepaged leaves them alone, but MADV_COLLAPSE can
 *                  collapse them
 *   growfault N    as smallfault, but each call grows one mapping at its
 *                  end (up to GROW_MAX regions over all calls): a mapping
 *                  that grows after an earlier collapse
 *   hugefault N    map N regions with MADV_HUGEPAGE and touch every page:
 *                  whatever backs them (THPs or base pages) is all faulted
 *   readfault N    map N regions with MADV_HUGEPAGE, read each (the huge
 *                  zero page, where the kernel maps it for reads), then
 *                  write each (which splits the zero page's PMD, or on
 *                  6.16+ replaces it with a THP)
 *   partial M      munmap one 4 KiB page inside each of the first M intact
 *                  regions (a PMD split each)
 *   mprotect M     mprotect one 4 KiB page of M intact regions (split, no unmap)
 *   dontneed-whole MADV_DONTNEED every intact region whole
 *   keep1 M        MADV_DONTNEED all but the first 4 KiB page of M intact
 *                  regions: each THP stays whole in memory, PTE-mapped
 *                  by one page (the waste a split gives back)
 *   free1 M        as keep1 with MADV_FREE (the kernel splits the THP)
 *   pageout1 M     MADV_PAGEOUT one 4 KiB page of M intact regions (split)
 *   shrink M       mremap M intact regions one 4 KiB page shorter (split)
 *   thp-off        prctl(PR_SET_THP_DISABLE): no new THP for this process,
 *                  and khugepaged leaves it alone (it would otherwise
 *                  collapse keep1's regions, 511 of 512 pages empty, back
 *                  into PMD-mapped THPs within seconds)
 *   unmap-whole    munmap every region still mapped, whole
 *   hold SECONDS   sleep (the task stays alive for inspection)
 *   wait-signal    pause until SIGUSR1 (tests run steps in phases)
 *   ready          print {"ready": true} on a line of its own (a test reads
 *                  it to know the steps before it are done)
 *   abuse SECONDS  every 50 ms fault a new region and partially unmap it
 *   heap-trim SECONDS  every 50 ms malloc 8 MiB in 32 KiB blocks, write
 *                  them and free them last first: glibc's malloc trims its
 *                  heap's top (brk), splitting the THP there (the heap
 *                  is collapsed first, MADV_COLLAPSE: its brk growth
 *                  makes no THP at fault, and glibc.malloc.hugetlb=1
 *                  trims by whole huge pages)
 *   fork-cow M     fork a child that keeps every mapping until this process
 *                  exits, then write one byte to each of M intact regions:
 *                  a copy-on-write fault each, which splits this process's
 *                  PMD while the child's stays
 *   end-child      end fork-cow's child and wait for it: its PMD mappings,
 *                  the last ones of the THPs this process split, go
 *   helper-keep1 M keep1 M, done by a clone(CLONE_VM) helper (a process of
 *                  its own on this memory, not a thread) that then exits
 *   map-file MIB   map the scratch directory's file "big" privately, read
 *                  its first MIB MiB (page cache, large folios where the
 *                  filesystem makes them) and write one byte of it
 *   collapse       madvise(MADV_COLLAPSE) every region still mapped
 *   churn SECONDS  as fast as possible: fault 16, split 8, unmap all (benchmarks)
 *   mthp-size KB   the size of the next mthp-fault's chunks (default 64)
 *   mthp-fault N   N chunks of that size, each its own mapping aligned to
 *                  its size with an inaccessible gap after it, so a folio
 *                  of that size fits and no larger one does; every page
 *                  written (multi-size THPs where the size is enabled)
 *   mthp-partial M munmap the second 4 KiB page of M intact chunks (the
 *                  folio is left partially mapped: split_deferred)
 *   mthp-mprotect M mprotect the second 4 KiB page of M intact chunks
 *                  (the folio stays mapped whole, across two mappings)
 *   mthp-pageout M MADV_PAGEOUT the second 4 KiB page of M intact chunks
 *                  (the kernel splits the folio)
 *   mthp-unmap     munmap every chunk whole
 *   hop N          a cgroup hopper, N rounds of 5 s: move into a new sibling
 *                  cgroup (hop1, hop2, ... beside the one it started in, which
 *                  must be a child of its tenant cgroup), fault 32 THPs, split
 *                  each, unmap them, remove the cgroup it left
 *   fifo-deleted N map N files of $TAOD_WORKLOAD_SCRATCH, unlink each and put
 *                  a FIFO at "NAME (deleted)", the name its mapping shows
 *   map-scratch N  map $TAOD_WORKLOAD_SCRATCH/[a-z].so N times each, in turn
 */
#define _GNU_SOURCE /* mremap */
#include <fcntl.h>
#include <limits.h>
#include <errno.h>
#include <libgen.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sched.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define REGION	    (2UL << 20)
#define PAGE	    4096UL
#define MAX_REGIONS 65536

enum region_state { R_NONE, R_INTACT, R_SPLIT, R_GONE };

static char *regions[MAX_REGIONS];
static enum region_state state[MAX_REGIONS];
static size_t nregions;
static long counts[16];
enum {
	C_FAULTED,
	C_PARTIAL,
	C_MPROTECT,
	C_DONTNEED,
	C_UNMAPPED,
	C_SMALL,
	C_ABUSE,
	C_COLLAPSED,
	C_COW,
	C_MTHP_FAULTED,
	C_MTHP_PARTIAL,
	C_MTHP_MPROTECT,
	C_MTHP_PAGEOUT,
};

static volatile sig_atomic_t got_usr1;

static void on_usr1(int sig)
{
	(void)sig;
	got_usr1 = 1;
}

static long anon_huge_kib(void)
{
	char line[256];
	long kib = -1;
	FILE *f = fopen("/proc/self/smaps_rollup", "r");

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "AnonHugePages: %ld kB", &kib) == 1)
			break;
	fclose(f);
	return kib;
}

static char *map_aligned_prot(size_t n, int prot, int flags)
{
	size_t len = n * REGION + REGION;
	char *raw = mmap(NULL, len, prot, MAP_PRIVATE | MAP_ANONYMOUS | flags, -1, 0);
	char *start;
	size_t head, tail;

	if (raw == MAP_FAILED)
		return NULL;
	start = (char *)(((uintptr_t)raw + REGION - 1) & ~(REGION - 1));
	head = (size_t)(start - raw);
	tail = len - head - n * REGION;
	if (head)
		munmap(raw, head);
	if (tail)
		munmap(start + n * REGION, tail);
	return start;
}

static char *map_aligned(size_t n)
{
	return map_aligned_prot(n, PROT_READ | PROT_WRITE, 0);
}

/* Touches the @n regions from @base and adds them to the table, intact. */
static void take_regions(char *base, long n, bool touch_all_pages)
{
	for (long i = 0; i < n; i++) {
		char *r = base + (size_t)i * REGION;

		for (size_t off = 0; off < REGION; off += touch_all_pages ? PAGE : REGION)
			r[off] = 1;
		regions[nregions] = r;
		state[nregions++] = R_INTACT;
	}
}

static int add_regions(long n, int advice, bool touch_all_pages)
{
	char *base;

	if (n <= 0 || nregions + (size_t)n > MAX_REGIONS)
		return -1;
	base = map_aligned((size_t)n);
	if (!base)
		return -1;
	madvise(base, (size_t)n * REGION, advice);
	take_regions(base, n, touch_all_pages);
	return 0;
}

static int step_readfault(long n)
{
	char *base = n > 0 && nregions + (size_t)n <= MAX_REGIONS ? map_aligned((size_t)n) : NULL;

	if (!base)
		return -1;
	madvise(base, (size_t)n * REGION, MADV_HUGEPAGE);
	for (long i = 0; i < n; i++)
		(void)*(volatile char *)(base + (size_t)i * REGION);
	for (long i = 0; i < n; i++) {
		regions[nregions] = base + (size_t)i * REGION;
		regions[nregions][PAGE] = 1;
		state[nregions++] = R_SPLIT; /* not a THP we faulted: no step splits it */
	}
	return 0;
}

static int step_smallfault(long n)
{
	if (add_regions(n, MADV_NORMAL, true))
		return -1;
	counts[C_SMALL] += n;
	return 0;
}

#define GROW_MAX 256

/*
 * Address space is reserved (PROT_NONE) once; each call makes the next N
 * regions writable, which merges them into the writable mapping before
 * them, and faults them page by page.
 */
static int step_growfault(long n)
{
	static char *reserved;
	static size_t used;
	char *next;

	if (n <= 0 || used + (size_t)n > GROW_MAX || nregions + (size_t)n > MAX_REGIONS)
		return -1;
	if (!reserved)
		reserved = map_aligned_prot(GROW_MAX, PROT_NONE, MAP_NORESERVE);
	if (!reserved)
		return -1;
	next = reserved + used * REGION;
	if (mprotect(next, (size_t)n * REGION, PROT_READ | PROT_WRITE))
		return -1;
	used += (size_t)n;
	take_regions(next, n, true);
	counts[C_SMALL] += n;
	return 0;
}

/* Applies @fn to the first @m intact regions. */
static long for_intact(long m, int (*fn)(char *r), enum region_state next)
{
	long done = 0;

	for (size_t i = 0; i < nregions && done < m; i++) {
		if (state[i] != R_INTACT)
			continue;
		if (fn(regions[i]) == 0) {
			state[i] = next;
			done++;
		}
	}
	return done;
}

/* Not inlined: its frame keeps its caller in a user stack walked by frame
 * pointers (the munmap wrapper below it makes none). */
static __attribute__((noinline)) int punch_page(char *r)
{
	return munmap(r + REGION / 2, PAGE);
}

static int protect_page(char *r)
{
	return mprotect(r + REGION / 2, PAGE, PROT_READ);
}

static int dontneed(char *r)
{
	return madvise(r, REGION, MADV_DONTNEED);
}

static int keep_first_page(char *r)
{
	return madvise(r + PAGE, REGION - PAGE, MADV_DONTNEED);
}

static int free_but_first_page(char *r)
{
	return madvise(r + PAGE, REGION - PAGE, MADV_FREE);
}

static int pageout_page(char *r)
{
	return madvise(r + REGION / 2, PAGE, MADV_PAGEOUT);
}

static int shrink_by_page(char *r)
{
	return mremap(r, REGION, REGION - PAGE, 0) == MAP_FAILED ? -1 : 0;
}

/* Steps that split M intact regions, each by one call. */
static const struct {
	const char *name;
	int (*fn)(char *r);
	int count; /* counts[] slot */
} split_steps[] = {
    {"partial", punch_page, C_PARTIAL},	   {"mprotect", protect_page, C_MPROTECT},
    {"keep1", keep_first_page, C_PARTIAL}, {"free1", free_but_first_page, C_PARTIAL},
    {"pageout1", pageout_page, C_PARTIAL}, {"shrink", shrink_by_page, C_PARTIAL},
};

static void unmap_all(void)
{
	for (size_t i = 0; i < nregions; i++) {
		if (state[i] == R_GONE)
			continue;
		/* A punched region is unmapped around its hole. */
		munmap(regions[i], REGION);
		state[i] = R_GONE;
		counts[C_UNMAPPED]++;
	}
}

static void sleep_ms(long ms)
{
	struct timespec ts = {.tv_sec = ms / 1000, .tv_nsec = (ms % 1000) * 1000000};

	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
}

/* Splits only the region it has just faulted: THPs faulted by earlier steps
 * stay intact unless something else (taod) splits them. */
static void abuse(long seconds)
{
	for (long i = 0; i < seconds * 20; i++) {
		if (add_regions(1, MADV_HUGEPAGE, false))
			break;
		if (punch_page(regions[nregions - 1]) == 0) {
			state[nregions - 1] = R_SPLIT;
			counts[C_ABUSE]++;
		}
		sleep_ms(50);
	}
}

#ifndef MADV_COLLAPSE
#define MADV_COLLAPSE 25
#endif

#define HEAP_BLOCKS 256 /* of 32 KiB: below the mmap threshold, in the heap */

/* glibc's own trim splits THPs: the frames are malloc's, not the program's. */
static void heap_trim(long seconds)
{
	char *blocks[HEAP_BLOCKS], *heap = malloc(1);
	uintptr_t from = (uintptr_t)heap & ~(uintptr_t)(PAGE - 1);

	for (long i = 0; i < seconds * 20; i++) {
		for (int b = 0; b < HEAP_BLOCKS; b++)
			if ((blocks[b] = malloc(32 << 10)))
				memset(blocks[b], 1, 32 << 10);
		madvise((void *)from, (uintptr_t)sbrk(0) - from, MADV_COLLAPSE);
		for (int b = HEAP_BLOCKS - 1; b >= 0; b--)
			free(blocks[b]);
		sleep_ms(50);
	}
}

/* MADV_COLLAPSE answers EAGAIN for a passing reason (a page not yet on the
 * LRU, a lock held); the kernel's documentation says to try again. */
static int collapse_region(char *r)
{
	for (int tries = 0; tries < 5; tries++) {
		if (!madvise(r, REGION, MADV_COLLAPSE))
			return 0;
		if (errno != EAGAIN)
			return -1;
		sleep_ms(20);
	}
	return -1;
}

static long collapse_all(void)
{
	long done = 0;

	for (size_t i = 0; i < nregions; i++)
		if (state[i] == R_INTACT && !collapse_region(regions[i]))
			done++;
	return done;
}

static void churn(long seconds)
{
	time_t end = time(NULL) + seconds;

	while (time(NULL) < end) {
		if (add_regions(16, MADV_HUGEPAGE, false))
			break;
		counts[C_FAULTED] += 16;
		counts[C_PARTIAL] += for_intact(8, punch_page, R_SPLIT);
		unmap_all();
		nregions = 0; /* every region is gone: reuse the table */
	}
}

/* The cgroup v2 directory this process is in, from /proc/self/cgroup. */
static int own_cgroup(char *dir, size_t len)
{
	char line[512];
	FILE *f = fopen("/proc/self/cgroup", "r");
	int n = -1;

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, "0::", 3)) {
			line[strcspn(line, "\n")] = 0;
			n = snprintf(dir, len, "/sys/fs/cgroup%s", line + 3);
		}
	fclose(f);
	return n > 0 && (size_t)n < len ? 0 : -1;
}

static int move_self(const char *dir)
{
	char procs[600];
	FILE *f;
	int rc;

	snprintf(procs, sizeof(procs), "%s/cgroup.procs", dir);
	f = fopen(procs, "w");
	if (!f)
		return -1;
	rc = fprintf(f, "0\n") < 0;
	return fclose(f) || rc ? -1 : 0;
}

/* Leaves each cgroup before a 30 s window could judge it; its split THPs'
 * memory goes with the cgroup it removes. */
static int hop(long rounds)
{
	char old[512], parent[512], next[600];

	if (own_cgroup(old, sizeof(old)))
		return -1;
	snprintf(parent, sizeof(parent), "%s", old);
	dirname(parent);
	for (long i = 1; i <= rounds; i++) {
		snprintf(next, sizeof(next), "%s/hop%ld", parent, i);
		if ((mkdir(next, 0755) && errno != EEXIST) || move_self(next))
			return -1;
		rmdir(old);
		snprintf(old, sizeof(old), "%s", next);
		if (add_regions(32, MADV_HUGEPAGE, false))
			return -1;
		counts[C_FAULTED] += 32;
		counts[C_PARTIAL] += for_intact(32, punch_page, R_SPLIT);
		unmap_all();
		nregions = 0;
		sleep_ms(5000);
	}
	return 0;
}

static int cow_write(char *r)
{
	r[PAGE] = 2;
	return 0;
}

/* The child holds the mappings, sharing each THP's PMD, until the read end
 * of a pipe only this process writes to sees it close. */
/* fork-cow's child, and the pipe whose closing ends it. */
static pid_t cow_child;
static int cow_pipe = -1;

static int end_child(void)
{
	if (cow_pipe < 0)
		return -1;
	close(cow_pipe);
	cow_pipe = -1;
	return waitpid(cow_child, NULL, 0) == cow_child ? 0 : -1;
}

static int fork_cow(long m)
{
	int fds[2];
	pid_t child;
	char c;

	if (pipe(fds))
		return -1;
	child = fork();
	if (child < 0)
		return -1;
	if (child == 0) {
		close(fds[1]);
		close(STDOUT_FILENO); /* the test reads the parent's output to EOF */
		close(STDERR_FILENO);
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		while (read(fds[0], &c, 1) < 0 && errno == EINTR)
			;
		_exit(0);
	}
	close(fds[0]);
	cow_child = child;
	cow_pipe = fds[1];
	counts[C_COW] += for_intact(m, cow_write, R_SPLIT);
	return 0;
}

/* Multi-size THP chunks (mthp-* steps), with their sizes. */
#define MAX_CHUNKS 8192

static char *chunks[MAX_CHUNKS];
static size_t chunk_len[MAX_CHUNKS];
static enum region_state cstate[MAX_CHUNKS];
static size_t nchunks;
static size_t mthp_size = 64UL << 10;

static int set_mthp_size(long kib)
{
	if (kib < 8 || kib > 1024 || (kib & (kib - 1))) {
		errno = EINVAL;
		return -1;
	}
	mthp_size = (size_t)kib << 10;
	return 0;
}

/* Reserves 2 N sizes inaccessible (plus one for alignment), then opens the
 * first half of each slot: N mappings the gaps keep apart. */
static int mthp_fault(long n)
{
	size_t sz = mthp_size, len = 2 * (size_t)n * sz + sz;
	char *raw, *base;

	if (n <= 0 || nchunks + (size_t)n > MAX_CHUNKS)
		return -1;
	raw = mmap(NULL, len, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (raw == MAP_FAILED)
		return -1;
	base = (char *)(((uintptr_t)raw + sz - 1) & ~(uintptr_t)(sz - 1));
	for (long i = 0; i < n; i++) {
		char *c = base + 2 * (size_t)i * sz;

		if (mprotect(c, sz, PROT_READ | PROT_WRITE))
			return -1;
		for (size_t off = 0; off < sz; off += PAGE)
			c[off] = 1;
		chunks[nchunks] = c;
		chunk_len[nchunks] = sz;
		cstate[nchunks++] = R_INTACT;
	}
	counts[C_MTHP_FAULTED] += n;
	return 0;
}

/* Applies @what to the second page of M intact chunks of the current size. */
static int mthp_each(long m, int what, int count)
{
	long done = 0;

	for (size_t i = 0; i < nchunks && done < m; i++) {
		char *page = chunks[i] + PAGE;
		int r;

		if (cstate[i] != R_INTACT || chunk_len[i] != mthp_size)
			continue;
		r = what == 0	? munmap(page, PAGE)
		    : what == 1 ? mprotect(page, PAGE, PROT_READ)
				: madvise(page, PAGE, MADV_PAGEOUT);
		if (r)
			return -1;
		cstate[i] = R_SPLIT;
		done++;
	}
	counts[count] += done;
	return 0;
}

static void mthp_unmap(void)
{
	for (size_t i = 0; i < nchunks; i++)
		if (cstate[i] != R_GONE && !munmap(chunks[i], chunk_len[i]))
			cstate[i] = R_GONE;
}

static int run_mthp_step(const char *step, long arg)
{
	if (!strcmp(step, "mthp-size"))
		return set_mthp_size(arg);
	if (!strcmp(step, "mthp-fault"))
		return mthp_fault(arg);
	if (!strcmp(step, "mthp-partial"))
		return mthp_each(arg, 0, C_MTHP_PARTIAL);
	if (!strcmp(step, "mthp-mprotect"))
		return mthp_each(arg, 1, C_MTHP_MPROTECT);
	if (!strcmp(step, "mthp-pageout"))
		return mthp_each(arg, 2, C_MTHP_PAGEOUT);
	if (!strcmp(step, "mthp-unmap"))
		return mthp_unmap(), 0;
	fprintf(stderr, "thp_workload: unknown step \"%s\"\n", step);
	return -2;
}

/* The scratch directory of the hostile-mapping steps (issue 27). */
static const char *scratch_dir(void)
{
	const char *d = getenv("TAOD_WORKLOAD_SCRATCH");

	if (!d)
		errno = EINVAL;
	return d;
}

/* Maps @n files of the scratch directory, unlinks each and puts a FIFO at
 * "NAME (deleted)": the name /proc/PID/maps then shows for it. */
static int fifo_deleted(long n)
{
	const char *d = scratch_dir();
	char path[PATH_MAX], fifo[PATH_MAX + 16];

	for (long i = 0; d && i < n; i++) {
		int fd;

		snprintf(path, sizeof(path), "%s/heap%ld", d, i);
		fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0600);
		if (fd < 0 || ftruncate(fd, PAGE) ||
		    mmap(NULL, PAGE, PROT_READ, MAP_PRIVATE, fd, 0) == MAP_FAILED)
			return -1;
		close(fd);
		snprintf(fifo, sizeof(fifo), "%s (deleted)", path);
		if (unlink(path) || mkfifo(fifo, 0600))
			return -1;
	}
	return d ? 0 : -1;
}

/* Maps every *.so of the scratch directory @n times, in turn, so that no
 * two neighbouring mappings share a file. */
static int map_scratch(long n)
{
	const char *d = scratch_dir();
	char path[PATH_MAX];

	for (long i = 0; d && i < n; i++)
		for (char c = 'a'; c <= 'z'; c++) {
			int fd;

			snprintf(path, sizeof(path), "%s/%c.so", d, c);
			fd = open(path, O_RDONLY);
			if (fd < 0)
				break;
			if (mmap(NULL, PAGE, PROT_READ, MAP_PRIVATE, fd, 0) == MAP_FAILED)
				return -1;
			close(fd);
		}
	return d ? 0 : -1;
}

static long helper_m;

static int helper_keep1(void *arg)
{
	(void)arg;
	counts[C_PARTIAL] += for_intact(helper_m, keep_first_page, R_SPLIT);
	return 0;
}

/* The splits are the helper's syscalls; the THPs stay this process's. */
static int step_helper_keep1(long m)
{
	size_t len = 256UL << 10;
	char *stack = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	pid_t pid;
	int st;

	if (stack == MAP_FAILED)
		return -1;
	helper_m = m;
	pid = clone(helper_keep1, stack + len, CLONE_VM | SIGCHLD, NULL);
	if (pid < 0 || waitpid(pid, &st, 0) != pid)
		return -1;
	munmap(stack, len);
	return WIFEXITED(st) && !WEXITSTATUS(st) ? 0 : -1;
}

static int map_file(long mib)
{
	const char *d = scratch_dir();
	char path[PATH_MAX];
	volatile char sum = 0;
	size_t len = (size_t)mib << 20;
	char *m;
	int fd;

	if (!d)
		return -1;
	snprintf(path, sizeof(path), "%s/big", d);
	fd = open(path, O_RDONLY);
	if (fd < 0)
		return -1;
	m = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE, fd, 0);
	close(fd);
	if (m == MAP_FAILED)
		return -1;
	for (size_t i = 0; i < len; i += PAGE)
		sum += m[i];
	m[PAGE] = sum; /* one copied page: the mapping's Anonymous > 0 */
	return 0;
}

static int run_step(const char *step, long arg)
{
	if (!strcmp(step, "fault"))
		return add_regions(arg, MADV_HUGEPAGE, false) ? -1 : (counts[C_FAULTED] += arg, 0);
	if (!strcmp(step, "hugefault"))
		return add_regions(arg, MADV_HUGEPAGE, true) ? -1 : (counts[C_FAULTED] += arg, 0);
	if (!strcmp(step, "thp-off"))
		return prctl(PR_SET_THP_DISABLE, 1, 0, 0, 0);
	if (!strcmp(step, "readfault"))
		return step_readfault(arg);
	if (!strcmp(step, "smallfault"))
		return step_smallfault(arg);
	if (!strcmp(step, "growfault"))
		return step_growfault(arg);
	for (size_t i = 0; i < sizeof(split_steps) / sizeof(split_steps[0]); i++)
		if (!strcmp(step, split_steps[i].name))
			return (counts[split_steps[i].count] +=
				for_intact(arg, split_steps[i].fn, R_SPLIT)),
			       0;
	if (!strcmp(step, "dontneed-whole"))
		return (counts[C_DONTNEED] += for_intact(MAX_REGIONS, dontneed, R_NONE)), 0;
	if (!strcmp(step, "unmap-whole"))
		return unmap_all(), 0;
	if (!strcmp(step, "hold"))
		return sleep_ms(arg * 1000), 0;
	if (!strcmp(step, "hold-ms"))
		return sleep_ms(arg), 0;
	if (!strcmp(step, "ready"))
		return printf("{\"ready\": true}\n") < 0 ? -1 : 0;
	if (!strcmp(step, "wait-signal")) {
		while (!got_usr1)
			pause();
		got_usr1 = 0;
		return 0;
	}
	if (!strcmp(step, "abuse"))
		return abuse(arg), 0;
	if (!strcmp(step, "heap-trim"))
		return heap_trim(arg), 0;
	if (!strcmp(step, "collapse"))
		return (counts[C_COLLAPSED] += collapse_all()), 0;
	if (!strcmp(step, "fork-cow"))
		return fork_cow(arg);
	if (!strcmp(step, "end-child"))
		return end_child();
	if (!strcmp(step, "churn"))
		return churn(arg), 0;
	if (!strcmp(step, "hop"))
		return hop(arg);
	if (!strcmp(step, "fifo-deleted"))
		return fifo_deleted(arg);
	if (!strcmp(step, "map-scratch"))
		return map_scratch(arg);
	if (!strcmp(step, "helper-keep1"))
		return step_helper_keep1(arg);
	if (!strcmp(step, "map-file"))
		return map_file(arg);
	return run_mthp_step(step, arg);
}

static bool takes_arg(const char *step)
{
	return strcmp(step, "dontneed-whole") && strcmp(step, "unmap-whole") &&
	       strcmp(step, "wait-signal") && strcmp(step, "ready") && strcmp(step, "collapse") &&
	       strcmp(step, "thp-off") && strcmp(step, "end-child") && strcmp(step, "mthp-unmap");
}

int main(int argc, char **argv)
{
	long thp_kib_after_fault = -1;

	signal(SIGUSR1, on_usr1);
	for (int i = 1; i < argc; i++) {
		const char *step = argv[i];
		long arg = 0;

		if (takes_arg(step)) {
			if (i + 1 >= argc) {
				fprintf(stderr, "thp_workload: %s needs a number\n", step);
				return 2;
			}
			arg = strtol(argv[++i], NULL, 10);
		}
		if (run_step(step, arg)) {
			fprintf(stderr, "thp_workload: step %s %ld failed: %s\n", step, arg,
				strerror(errno));
			return 1;
		}
		if (!strcmp(step, "fault"))
			thp_kib_after_fault = anon_huge_kib();
		fflush(stdout);
	}
	printf("{\"pid\": %d, \"faulted\": %ld, \"thp_kib_after_fault\": %ld, \"partial\": %ld, "
	       "\"mprotect\": %ld, \"dontneed\": %ld, \"unmapped\": %ld, \"small\": %ld, "
	       "\"abuse_splits\": %ld, \"collapsed\": %ld, \"cow\": %ld, \"thp_kib_end\": %ld, "
	       "\"mthp_faulted\": %ld, \"mthp_partial\": %ld, \"mthp_mprotect\": %ld, "
	       "\"mthp_pageout\": %ld}\n",
	       getpid(), counts[C_FAULTED], thp_kib_after_fault, counts[C_PARTIAL],
	       counts[C_MPROTECT], counts[C_DONTNEED], counts[C_UNMAPPED], counts[C_SMALL],
	       counts[C_ABUSE], counts[C_COLLAPSED], counts[C_COW], anon_huge_kib(),
	       counts[C_MTHP_FAULTED], counts[C_MTHP_PARTIAL], counts[C_MTHP_MPROTECT],
	       counts[C_MTHP_PAGEOUT]);
	return 0;
}
