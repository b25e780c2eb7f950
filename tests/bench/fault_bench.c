// SPDX-License-Identifier: GPL-2.0
/*
 * Page fault microbenchmark: fault_bench 4k|2m FAULTS ROUNDS.
 * Each round maps fresh anonymous memory, writes one byte per page (4 KiB
 * pages with MADV_NOHUGEPAGE, or 2 MiB THPs with MADV_HUGEPAGE) and unmaps
 * it; only the faulting loop is timed. Prints one JSON line with the best
 * round's ns per fault, the faults made and how many were THPs.
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>

#define THP_SIZE (2UL << 20)

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* Faults @n pages of @step bytes; returns the ns the faults took. */
static uint64_t one_round(size_t n, size_t step, int advice)
{
	size_t len = n * step + (step > 4096 ? step : 0);
	char *raw = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	char *p;
	uint64_t t0, t1;

	if (raw == MAP_FAILED) {
		perror("fault_bench: mmap");
		exit(1);
	}
	p = (char *)(((uintptr_t)raw + step - 1) & ~(uintptr_t)(step - 1));
	madvise(p, n * step, advice);
	t0 = now_ns();
	for (size_t i = 0; i < n; i++)
		p[i * step] = 1;
	t1 = now_ns();
	munmap(raw, len);
	return t1 - t0;
}

int main(int argc, char **argv)
{
	bool huge;
	size_t n, step;
	int rounds;
	uint64_t best = UINT64_MAX;

	if (argc != 4 || (strcmp(argv[1], "4k") && strcmp(argv[1], "2m"))) {
		fprintf(stderr, "usage: fault_bench 4k|2m FAULTS ROUNDS\n");
		return 2;
	}
	huge = !strcmp(argv[1], "2m");
	n = strtoul(argv[2], NULL, 10);
	rounds = atoi(argv[3]);
	step = huge ? THP_SIZE : 4096;
	for (int r = 0; n && r < rounds; r++) {
		uint64_t ns = one_round(n, step, huge ? MADV_HUGEPAGE : MADV_NOHUGEPAGE);

		if (ns < best)
			best = ns;
	}
	printf("{\"faults\": %zu, \"ns_per_fault\": %.1f}\n", n * (size_t)rounds,
	       n && rounds > 0 ? (double)best / (double)n : 0.0);
	return 0;
}
