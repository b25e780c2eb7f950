// SPDX-License-Identifier: GPL-2.0
/*
 * A cache server's heap, for the lab's real-allocator tenants
 * (tests/vm/tenants): the allocator under test comes from LD_PRELOAD
 * (jemalloc, tcmalloc) or is glibc's, tuned by its own environment.
 *
 *   kvcache MIB SECONDS
 *
 * Fills MIB of objects (sizes log-uniform from 64 B to 256 KiB, as a cache
 * of mixed values holds), then every 100 ms replaces 1% of them; at 40% of
 * the run the load drops and a random half is freed, at 70% it comes back
 * and the cache is filled again. Prints one JSON line at the end. Exit: 0,
 * or 2 for bad arguments, 1 when malloc fails.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define MAX_OBJ 65536

static void *obj[MAX_OBJ];
static size_t size[MAX_OBJ];
static size_t live_bytes;
static size_t nslots; /* slots the first fill used: the cache's key space */
static uint64_t rng = 88172645463325252ULL;

static uint64_t next_rand(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

/* 64 B << (0..12), then a random part of the next doubling: log-uniform. */
static size_t random_size(void)
{
	size_t base = (size_t)64 << (next_rand() % 12);

	return base + next_rand() % base;
}

static int put(size_t i)
{
	size_t n = random_size();

	obj[i] = malloc(n);
	if (!obj[i])
		return -1;
	memset(obj[i], (int)(i & 0xff), n); /* written, as a cached value is */
	size[i] = n;
	live_bytes += n;
	return 0;
}

static void drop(size_t i)
{
	free(obj[i]);
	obj[i] = NULL;
	live_bytes -= size[i];
	size[i] = 0;
}

static int fill(size_t target)
{
	for (size_t i = 0; i < MAX_OBJ && live_bytes < target; i++) {
		if (!obj[i] && put(i))
			return -1;
		nslots = i + 1 > nslots ? i + 1 : nslots;
	}
	return 0;
}

/* New values for live keys; freed keys stay freed until the refill. */
static int replace_some(size_t count)
{
	for (size_t k = 0; k < count; k++) {
		size_t i = next_rand() % nslots;

		if (!obj[i])
			continue;
		drop(i);
		if (put(i))
			return -1;
	}
	return 0;
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	long mib = argc == 3 ? strtol(argv[1], NULL, 10) : 0;
	long seconds = argc == 3 ? strtol(argv[2], NULL, 10) : 0;
	size_t target = (size_t)mib << 20, peak = 0, live_objects = 0;
	const struct timespec tick = {.tv_nsec = 100 * 1000000L};
	double start = now_s(), t;
	int dropped = 0, refilled = 0;

	if (mib <= 0 || seconds <= 0) {
		fprintf(stderr, "usage: kvcache MIB SECONDS\n");
		return 2;
	}
	if (fill(target))
		return 1;
	while ((t = now_s() - start) < (double)seconds) {
		if (!dropped && t > 0.4 * (double)seconds) {
			for (size_t i = 0; i < nslots; i++)
				if (obj[i] && next_rand() % 2)
					drop(i);
			dropped = 1;
		}
		if (!refilled && t > 0.7 * (double)seconds) {
			if (fill(target))
				return 1;
			refilled = 1;
		}
		if (replace_some(nslots / 100 + 1))
			return 1;
		peak = live_bytes > peak ? live_bytes : peak;
		nanosleep(&tick, NULL);
	}
	for (size_t i = 0; i < MAX_OBJ; i++)
		live_objects += obj[i] != NULL;
	printf(
	    "{\"tenant\": \"kvcache\", \"peak_mib\": %zu, \"live_mib\": %zu, \"objects\": %zu}\n",
	    peak >> 20, live_bytes >> 20, live_objects);
	return 0;
}
