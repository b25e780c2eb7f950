// SPDX-License-Identifier: GPL-2.0
/*
 * A cache server's heap, for the lab's real-allocator tenants
 * (tests/vm/tenants): the allocator under test comes from LD_PRELOAD
 * (jemalloc, tcmalloc, mimalloc) or is glibc's, tuned by its own
 * environment.
 *
 *   kvcache MIB SECONDS [THREADS]
 *
 * Fills MIB of objects (sizes log-uniform from 64 B to 256 KiB, as a cache
 * of mixed values holds), then every 100 ms replaces 1% of them; at 40% of
 * the run the load drops and a random half is freed, at 70% it comes back
 * and the cache is filled again. With THREADS (default 1: the main thread
 * alone), that many workers each run a cache of MIB / THREADS, each in its
 * own glibc arena (a per-thread heap), and at the end each frees its whole
 * cache, newest value first, before it exits: a server's workers tearing
 * down their caches at shutdown, whose heap trims split the THPs the next
 * trim or the exit frees within the second (issue 26 item 3). Prints one
 * JSON line at the end. Exit: 0, or 2 for bad arguments, 1 when malloc or
 * a thread fails.
 */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define MAX_OBJ	    65536
#define MAX_THREADS 64

struct cache {
	void *obj[MAX_OBJ];
	size_t size[MAX_OBJ];
	size_t live_bytes, peak, target;
	size_t nslots; /* slots the first fill used: the cache's key space */
	uint64_t rng;
	double seconds;
	int failed;
};

static uint64_t next_rand(struct cache *c)
{
	c->rng ^= c->rng << 13;
	c->rng ^= c->rng >> 7;
	c->rng ^= c->rng << 17;
	return c->rng;
}

/* 64 B << (0..12), then a random part of the next doubling: log-uniform. */
static size_t random_size(struct cache *c)
{
	size_t base = (size_t)64 << (next_rand(c) % 12);

	return base + next_rand(c) % base;
}

static int put(struct cache *c, size_t i)
{
	size_t n = random_size(c);

	c->obj[i] = malloc(n);
	if (!c->obj[i])
		return -1;
	memset(c->obj[i], (int)(i & 0xff), n); /* written, as a cached value is */
	c->size[i] = n;
	c->live_bytes += n;
	return 0;
}

static void drop(struct cache *c, size_t i)
{
	free(c->obj[i]);
	c->obj[i] = NULL;
	c->live_bytes -= c->size[i];
	c->size[i] = 0;
}

static int fill(struct cache *c)
{
	for (size_t i = 0; i < MAX_OBJ && c->live_bytes < c->target; i++) {
		if (!c->obj[i] && put(c, i))
			return -1;
		c->nslots = i + 1 > c->nslots ? i + 1 : c->nslots;
	}
	return 0;
}

/* New values for live keys; freed keys stay freed until the refill. */
static int replace_some(struct cache *c, size_t count)
{
	for (size_t k = 0; k < count; k++) {
		size_t i = next_rand(c) % c->nslots;

		if (!c->obj[i])
			continue;
		drop(c, i);
		if (put(c, i))
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

/* The cache's life: fill, churn, drop half at 40%, refill at 70%. */
static int serve(struct cache *c)
{
	const struct timespec tick = {.tv_nsec = 100 * 1000000L};
	double start = now_s(), t;
	int dropped = 0, refilled = 0;

	if (fill(c))
		return -1;
	while ((t = now_s() - start) < c->seconds) {
		if (!dropped && t > 0.4 * c->seconds) {
			for (size_t i = 0; i < c->nslots; i++)
				if (c->obj[i] && next_rand(c) % 2)
					drop(c, i);
			dropped = 1;
		}
		if (!refilled && t > 0.7 * c->seconds) {
			if (fill(c))
				return -1;
			refilled = 1;
		}
		if (replace_some(c, c->nslots / 100 + 1))
			return -1;
		c->peak = c->live_bytes > c->peak ? c->live_bytes : c->peak;
		nanosleep(&tick, NULL);
	}
	return 0;
}

/* A worker: its cache, then the teardown of all of it, newest first. */
static void *worker(void *arg)
{
	struct cache *c = arg;

	c->failed = serve(c) != 0;
	for (size_t i = c->nslots; i-- > 0;)
		if (c->obj[i])
			drop(c, i);
	return NULL;
}

static size_t live_objects(const struct cache *c)
{
	size_t n = 0;

	for (size_t i = 0; i < MAX_OBJ; i++)
		n += c->obj[i] != NULL;
	return n;
}

/* THREADS workers in their own arenas; 0, or -1 when one failed. */
static int run_workers(struct cache *caches, long threads)
{
	pthread_t tid[MAX_THREADS];
	int failed = 0;

	for (long k = 0; k < threads; k++)
		if (pthread_create(&tid[k], NULL, worker, &caches[k]))
			return -1;
	for (long k = 0; k < threads; k++) {
		pthread_join(tid[k], NULL);
		failed |= caches[k].failed;
	}
	return failed ? -1 : 0;
}

int main(int argc, char **argv)
{
	long mib = argc >= 3 && argc <= 4 ? strtol(argv[1], NULL, 10) : 0;
	long seconds = argc >= 3 && argc <= 4 ? strtol(argv[2], NULL, 10) : 0;
	long threads = argc == 4 ? strtol(argv[3], NULL, 10) : 1;
	size_t peak = 0, live = 0, objects = 0;
	struct cache *caches;

	if (mib <= 0 || seconds <= 0 || threads <= 0 || threads > MAX_THREADS) {
		fprintf(stderr, "usage: kvcache MIB SECONDS [THREADS (1..%d)]\n", MAX_THREADS);
		return 2;
	}
	caches = calloc((size_t)threads, sizeof(*caches));
	if (!caches)
		return 1;
	for (long k = 0; k < threads; k++) {
		caches[k].target = ((size_t)mib << 20) / (size_t)threads;
		caches[k].rng = 88172645463325252ULL + 7919 * (uint64_t)k;
		caches[k].seconds = (double)seconds;
	}
	if (threads == 1 ? serve(&caches[0]) : run_workers(caches, threads))
		return 1;
	for (long k = 0; k < threads; k++) {
		peak += caches[k].peak;
		live += caches[k].live_bytes;
		objects += live_objects(&caches[k]);
	}
	printf("{\"tenant\": \"kvcache\", \"threads\": %ld, \"peak_mib\": %zu, \"live_mib\": %zu, "
	       "\"objects\": %zu}\n",
	       threads, peak >> 20, live >> 20, objects);
	return 0;
}
