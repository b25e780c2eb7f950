// SPDX-License-Identifier: GPL-2.0
/* /proc/PID/smaps as the act stage reads it (split and collapse plans). */
#include "act/read/smaps.h"
#include "input.h"

static int count(void *ctx, const struct vma_info *v)
{
	*(uint64_t *)ctx += v->anon_huge + (v->end - v->start);
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct vma_info *v = NULL;
	uint64_t sum = 0;
	char path[64];

	if (fuzz_file(data, size, path))
		return 0;
	smaps_scan(path, count, &sum);
	if (smaps_collect(path, &v) >= 0)
		free(v);
	return 0;
}
