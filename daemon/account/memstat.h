/* SPDX-License-Identifier: GPL-2.0 */
/* memory.stat: the anon and THP-backed anon bytes of one cgroup. */
#ifndef TAOD_MEMSTAT_H
#define TAOD_MEMSTAT_H

#include <stdbool.h>
#include <stdint.h>

struct memstat {
	uint64_t anon_bytes;
	uint64_t thp_bytes;
	bool has_anon, has_thp;
};

/* Looks up @anon_key and @thp_key in memory.stat text ("key value\n"...). */
int memstat_parse(const char *text, const char *anon_key, const char *thp_key, struct memstat *out);
/* THP-backed share of anon memory in percent, or -1 when there is no anon. */
double memstat_coverage_pct(const struct memstat *m);
/* Value of one key in "key value" text; -ENOENT when absent. */
int kv_lookup_u64(const char *text, const char *key, uint64_t *out);

#endif
