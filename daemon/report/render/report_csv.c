// SPDX-License-Identifier: GPL-2.0
/* `taoctl report --format csv`: one header line, one line per cgroup (RFC 4180). */
#include <assert.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "report/report.h"
#include "common/utf8.h"
#include "common/workload_name.h"

/* Any control character: a TAB or an ESC in a name is quoted, the bytes kept. */

/* A number, or an empty field when unknown. */
static void csv_known(FILE *f, double v)
{
	if (v >= 0)
		fprintf(f, ",%.2f", v);
	else
		fputc(',', f);
}

/* THPs the cgroup's shatters shattered, failed, discarded, split; empty where none counted. */
static void csv_shatter(FILE *f, const struct report_cgroup *c)
{
	struct report_shatter_sum s = report_cgroup_shatter(c);

	if (!s.actions)
		fputs(",,,,", f);
	else
		fprintf(f, ",%llu,%llu,%llu,%llu", (unsigned long long)s.shattered,
			(unsigned long long)s.failed, (unsigned long long)s.discarded,
			(unsigned long long)s.split);
}

/* The unit, container and pod the path's name claims; empty where none. */
static void csv_workload(FILE *f, const char *path)
{
	struct workload_name w;

	workload_name_parse(path, &w);
	fputc(',', f);
	csv_field(f, w.unit);
	fputc(',', f);
	csv_field(f, w.container);
	fputc(',', f);
	csv_field(f, w.pod);
}

static void csv_row(FILE *f, const struct report_cgroup *c)
{
	csv_field(f, c->path);
	fprintf(f, ",%llu,%lld,%lld,", (unsigned long long)c->cgroup_id,
		(long long)c->first_seen_ms, (long long)c->last_seen_ms);
	csv_field(f, c->class);
	fprintf(f, ",%zu", c->samples);
	csv_known(f, c->coverage_now);
	csv_known(f, c->coverage_min);
	csv_known(f, c->coverage_mean);
	csv_known(f, c->coverage_max);
	if (c->anon_bytes >= 0)
		fprintf(f, ",%lld,%lld", (long long)c->anon_bytes, (long long)c->thp_bytes);
	else
		fputs(",,", f);
	fprintf(f, ",%llu,%llu,%llu,%.4f,%zu,%zu", (unsigned long long)c->thp_alloc,
		(unsigned long long)c->counts[CG_IDX_pmd_split],
		(unsigned long long)c->counts[CG_IDX_pmd_unmap_whole], report_split_ratio(c),
		c->nchanges, c->nactions);
	csv_shatter(f, c);
	csv_workload(f, c->path);
	fputs("\r\n", f);
}

int report_write_csv(FILE *f, const struct report *r)
{
	assert(f);
	assert(r);
	fputs("cgroup,cgroup_id,first_seen_ms,last_seen_ms,class,samples,coverage_now_pct,"
	      "coverage_min_pct,coverage_mean_pct,coverage_max_pct,anon_bytes,thp_bytes,"
	      "thp_alloc,pmd_split,pmd_unmap_whole,split_ratio,class_changes,actions,"
	      "thp_shattered,thp_shatter_failed,thp_shatter_discarded,thp_shatter_split,unit,"
	      "container,pod\r\n",
	      f);
	for (size_t i = 0; i < r->ncgroups; i++)
		csv_row(f, &r->cgroups[i]);
	return ferror(f) ? -1 : 0;
}
