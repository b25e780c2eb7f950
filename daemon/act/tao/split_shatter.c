// SPDX-License-Identifier: GPL-2.0
/*
 * Shatter on a TAO kernel without memory.thp_shatter (the public TAO code):
 * a folio in a policy zone cannot be split, so the kernel shatters it
 * whenever a split is asked for. The stock split path (debugfs
 * split_huge_pages, or MADV_PAGEOUT under lockdown) aimed at the offender
 * is the lever; the machine-wide vmstat deltas around it say how many THPs
 * were shattered, failed, discarded, or split (folios outside the zones).
 * The deltas include whatever else the machine split meanwhile: a count,
 * not a proof.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <string.h>

#include "split_shatter.h"
#include "act/read/thp_chunks.h"
#include "act/stock/thp_split.h"
#include "act/act_time.h"
#include "act/stock/contiguity.h"
#include "account/memstat.h"
#include "common/rootfs.h"

/* The vmstat counters, in this order: shattered, failed, discarded, split. */
static const char *const names[] = {"thp_shatter_page", "thp_shatter_page_failed",
				    "thp_shatter_page_discarded", "thp_split_page"};
#define NCOUNTS (sizeof(names) / sizeof(*names))

/* False when vmstat cannot be read or has no thp_shatter_page. */
static bool read_counts(const struct act_ctx *c, uint64_t v[NCOUNTS])
{
	static char text[1 << 16];
	bool counted = rootfs_read(c->k->vmstat, text, sizeof(text)) >= 0;

	for (size_t i = 0; i < NCOUNTS; i++)
		if (!counted || kv_lookup_u64(text, names[i], &v[i]))
			v[i] = 0;
	return counted && !kv_lookup_u64(text, names[0], &v[0]);
}

static uint64_t delta(uint64_t before, uint64_t after)
{
	return after > before ? after - before : 0;
}

/* "; compacted ..." or why not; compaction helps only where pages were split free. */
static int compact(const struct act_ctx *c, const struct shatter_counts *n, char *buf, size_t len)
{
	if (!c->s->compact_after_shatter)
		return 0;
	if (n->counted && !n->split) {
		snprintf(buf, len, "; no compaction: every THP shattered, none split");
		return 0;
	}
	snprintf(buf, len, "; ");
	return contiguity_after_shatter(c, 1, buf + 2, len - 2); /* gated: pressure, interval */
}

/*
 * The kernel counts every THP a split request reaches: shattered (in a
 * zone), failed, discarded or split. A request it counted as none of them
 * changed nothing (the THPs went away between the scan and the write, or
 * the writes reached none): no-gain (failed where a write failed), which
 * backs off, never "done".
 */
static bool counted_nothing(const struct shatter_counts *n)
{
	return n->counted && !n->shattered && !n->failed && !n->discarded && !n->split;
}

void tao_split_shatter(const struct act_ctx *c, const struct action_request *req, uint64_t budget,
		       struct act_outcome *o)
{
	uint64_t b[NCOUNTS], a[NCOUNTS];
	bool counted = read_counts(c, b);
	struct shatter_counts n;
	struct split_tally t;
	char after[192] = "", small[192];
	int r;

	if (thp_split_offender(c, req, budget, SPLIT_CHECK_VMSTAT, &t, o))
		return;
	mthp_split_text(&t.mthp, small, sizeof(small));
	counted = read_counts(c, a) && counted;
	n = o->shatter; /* the split path's tally, and the kernel's counts: */
	n.counted = counted;
	n.shattered = delta(b[0], a[0]);
	n.failed = delta(b[1], a[1]);
	n.discarded = delta(b[2], a[2]);
	n.split = delta(b[3], a[3]);
	o->shatter = n;
	if (counted_nothing(&n)) {
		act_outcome_set(o, t.failed ? RESULT_FAILED : RESULT_NO_GAIN, t.failed ? t.err : 0,
				"%llu THPs asked of %d task(s) via %s: the kernel counted none "
				"shattered, failed, discarded or split (vmstat)%s%s",
				(unsigned long long)(t.bytes / THP_BYTES), t.tasks,
				thp_split_via(c, &t), t.timed_out ? ACT_TIME_NOTE : "", small);
		return;
	}
	r = compact(c, &n, after, sizeof(after));
	act_outcome_set(
	    o, RESULT_DONE, t.failed ? t.err : -r,
	    "%llu THPs (%llu partly mapped) asked of %d task(s) via %s: shattered %llu, "
	    "failed %llu, discarded %llu pages, split %llu%s%s%s%s",
	    (unsigned long long)(t.bytes / THP_BYTES),
	    (unsigned long long)(t.partial_bytes / THP_BYTES), t.tasks, thp_split_via(c, &t),
	    (unsigned long long)n.shattered, (unsigned long long)n.failed,
	    (unsigned long long)n.discarded, (unsigned long long)n.split,
	    n.counted ? " (vmstat)" : " (vmstat has no thp_shatter_page)",
	    t.timed_out ? ACT_TIME_NOTE : "", small, after);
}
