// SPDX-License-Identifier: GPL-2.0
/*
 * A tenant that holds its own mmap lock against readers of its /proc files
 * (tests/integration/test_lock_holder.py): VMAS small mappings, so a read
 * of its smaps takes the lock thousands of times; a read-only mapping of
 * ZERO_MIB faulted to the zero page a 4 KiB page at a time, whose page
 * tables a thread mprotect()s back and forth, each flip holding the lock
 * for write while it walks millions of PTEs; and THPS THPs left partly
 * mapped (64 KiB unmapped from each), for a shatter to find and for split
 * events to explain. Prints "ready PID" once all of it holds.
 *
 * Usage: mmap_lock_holder VMAS ZERO_MIB THPS
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#define PAGE	  4096UL
#define THP_BYTES (2UL << 20)

static char *zero;
static size_t zero_len;

static void *flip(void *arg)
{
	(void)arg;
	for (;;) {
		mprotect(zero, zero_len, PROT_NONE);
		mprotect(zero, zero_len, PROT_READ);
	}
	return NULL;
}

/* Alternate protections keep neighbours from merging: one VMA each. */
static int many_vmas(long n)
{
	char *v = mmap(NULL, (size_t)n * 2 * PAGE, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (v == MAP_FAILED)
		return -1;
	for (long i = 0; i < n; i++)
		if (mprotect(v + 2 * i * PAGE, PAGE, PROT_READ))
			return -1;
	return 0;
}

static int zero_pages(long mib)
{
	volatile char sum = 0;

	zero_len = (size_t)mib << 20;
	zero = mmap(NULL, zero_len, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (zero == MAP_FAILED || madvise(zero, zero_len, MADV_NOHUGEPAGE))
		return -1;
	for (size_t off = 0; off < zero_len; off += PAGE)
		sum += zero[off];
	return 0;
}

/* THPs faulted, then each left partly mapped: 64 KiB of it unmapped. */
static int partly_mapped_thps(long n)
{
	size_t len = (size_t)n * THP_BYTES;
	char *raw =
	    mmap(NULL, len + THP_BYTES, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	char *p;

	if (raw == MAP_FAILED)
		return -1;
	p = (char *)(((uintptr_t)raw + THP_BYTES - 1) & ~(THP_BYTES - 1));
	madvise(p, len, MADV_HUGEPAGE);
	for (size_t off = 0; off < len; off += PAGE)
		p[off] = 1;
	for (long i = 0; i < n; i++)
		munmap(p + (size_t)i * THP_BYTES, 64 << 10);
	return 0;
}

int main(int argc, char **argv)
{
	pthread_t t;

	if (argc != 4) {
		fprintf(stderr, "usage: %s VMAS ZERO_MIB THPS\n", argv[0]);
		return 2;
	}
	if (partly_mapped_thps(atol(argv[3])) || many_vmas(atol(argv[1])) ||
	    zero_pages(atol(argv[2])) || pthread_create(&t, NULL, flip, NULL)) {
		perror("mmap_lock_holder");
		return 1;
	}
	printf("ready %d\n", (int)getpid());
	fflush(stdout);
	pause();
	return 0;
}
