// SPDX-License-Identifier: GPL-2.0
/*
 * The stock-kernel backend. Shatter stands in as splitting an offending
 * task's THPs (thp_split.c); with compact_after_shatter, under contiguity
 * pressure, the freed pages are then merged into free 2 MiB blocks
 * (contiguity.c). Collapse is
 * process_madvise(MADV_COLLAPSE). Restrict and grant lower and put back
 * memory.high (v1: the soft limit) when stock_restrict is on
 * (memory_limit.c); there are no policy zones to size (ZONE_MOVABLE
 * sizing is left out on stock).
 */
#include <string.h>

#include "thp_split.h"
#include "thp_collapse.h"
#include "contiguity.h"
#include "memory_limit.h"
#include "act/read/thp_chunks.h" /* THP_BYTES */
#include "act/act_time.h"

static void stock_shatter(const struct act_ctx *c, const struct action_request *req,
			  uint64_t budget, struct act_outcome *o)
{
	struct split_tally t;
	char after[160] = "", small[192];
	int r = 0;

	if (thp_split_offender(c, req, budget, SPLIT_CHECK_PAGES, &t, o))
		return;
	/* Every THP counted was seen split in the page tables afterwards. */
	o->shatter.counted = true;
	o->shatter.split = t.bytes / THP_BYTES;
	mthp_split_text(&t.mthp, small, sizeof(small));
	r = contiguity_after_shatter(c, t.bytes, after, sizeof(after));
	if (r && !t.failed)
		t.err = -r;
	act_outcome_set(
	    o, RESULT_DONE, t.failed || r ? t.err : 0,
	    "split %llu THPs (%llu bytes, %llu partly mapped) of %d task(s) via %s%s%s%s%s%s",
	    (unsigned long long)(t.bytes / THP_BYTES), (unsigned long long)t.bytes,
	    (unsigned long long)(t.partial_bytes / THP_BYTES), t.tasks, thp_split_via(c, &t),
	    t.failed ? ", some writes failed" : "", t.timed_out ? ACT_TIME_NOTE : "", small,
	    after[0] ? "; " : "", after);
}

static int stock_read_stats(const struct act_ctx *c, struct act_stats *out)
{
	(void)c;
	memset(out, 0, sizeof(*out));
	return 0;
}

const struct act_backend_ops backend_stock_ops = {
    .name = "stock",
    .shatter_needs_debugfs = true,
    /* No policy zones: resize-zones is unsupported (actor.c); restrict and
     * grant through memory.high or the v1 soft limit when turned on. */
    .op =
	{
	    [ACTION_RESTRICT] = memory_limit_restrict,
	    [ACTION_GRANT] = memory_limit_grant,
	    [ACTION_SHATTER] = stock_shatter,
	    [ACTION_COLLAPSE] = thp_collapse_cgroup,
	},
    .withheld = memory_limit_withheld,
    .expire = memory_limit_expire,
    .read_stats = stock_read_stats,
};
