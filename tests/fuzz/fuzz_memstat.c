// SPDX-License-Identifier: GPL-2.0
/* memory.stat (v1 and v2 keys): any text, no crash, no over-read. */
#include "input.h"
#include "account/memstat.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = fuzz_cstr(data, size);
	struct memstat m;
	uint64_t v;

	if (!text)
		return 0;
	memstat_parse(text, "anon", "anon_thp", &m);
	memstat_parse(text, "total_rss", "total_rss_huge", &m);
	memstat_coverage_pct(&m);
	kv_lookup_u64(text, "thp_shatter_page", &v);
	free(text);
	return 0;
}
