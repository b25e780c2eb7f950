// SPDX-License-Identifier: GPL-2.0
/* Where a cgroup stands on its policy's action ladder. */
#include <assert.h>

#include "decide.h"

enum ladder_rung ladder_rung_for(const struct policy *p, unsigned strikes)
{
	assert(p);

	enum ladder_rung best = RUNG_OBSERVE;

	for (int r = 0; r < RUNG_MAX; r++)
		if (p->ladder[r] && p->ladder[r] <= strikes)
			best = r;
	return best;
}
