// SPDX-License-Identifier: GPL-2.0
/* /proc/zoneinfo and /proc/buddyinfo, TAO zones included. */
#include "input.h"
#include "account/machine_stats.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct machine_stats m;
	char *text = fuzz_cstr(data, size);

	if (!text)
		return 0;
	memset(&m, 0, sizeof(m));
	machine_parse_zoneinfo(text, &m);
	machine_parse_buddyinfo(text, &m);
	free(text);
	return 0;
}
