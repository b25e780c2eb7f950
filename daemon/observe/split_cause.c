// SPDX-License-Identifier: GPL-2.0
/* Cause names come from the same X-macro list as the BPF programs' enum. */
#include "split_cause.h"

#include <string.h>

#define TAOD_CAUSE_NAME_(id, name) [id] = name,
static const char *const names[TAOD_CAUSE_MAX] = {TAOD_SPLIT_CAUSES(TAOD_CAUSE_NAME_)};
#undef TAOD_CAUSE_NAME_

const char *split_cause_name(int cause)
{
	return cause >= 0 && cause < TAOD_CAUSE_MAX ? names[cause] : "unknown";
}

int split_cause_from_name(const char *name)
{
	for (int c = 0; c < TAOD_CAUSE_MAX; c++)
		if (!strcmp(names[c], name))
			return c;
	return -1;
}

bool split_cause_returns_memory(int cause)
{
	switch (cause) {
	case TAOD_CAUSE_MUNMAP:
	case TAOD_CAUSE_MADV_DONTNEED:
	case TAOD_CAUSE_MADV_FREE:
	case TAOD_CAUSE_MADV_PAGEOUT:
	case TAOD_CAUSE_MADV_OTHER:
	case TAOD_CAUSE_MPROTECT:
	case TAOD_CAUSE_MREMAP:
	case TAOD_CAUSE_BRK:
		return true;
	}
	return false;
}

int split_cause_top(const __u64 by_cause[TAOD_CAUSE_MAX])
{
	int top = -1;

	for (int c = 0; c < TAOD_CAUSE_MAX; c++)
		if (by_cause[c] && (top < 0 || by_cause[c] > by_cause[top]))
			top = c;
	return top;
}
