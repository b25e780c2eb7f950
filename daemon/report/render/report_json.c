// SPDX-License-Identifier: GPL-2.0
/* `taoctl report --format json`: the whole report as one JSON object. */
#include <assert.h>
#include <json-c/json.h>
#include <stdlib.h>

#include "report/history/history_columns.h"
#include "report/history/history.h"
#include "common/json_fields.h"
#include "report/report.h"
#include "report_costs_out.h"
#include "common/workload_name.h"
#include "report_sizes.h"

/* THPs by a shatter's outcome, as the kernel counted them. */
/* thp_alloc and the history's counters (every kept one, 0 where an older database lacks it). */
static void add_counts(struct json_object *o, uint64_t thp_alloc, const uint64_t *counts)
{
	json_add_u64(o, "thp_alloc", thp_alloc);
	for (size_t i = 0; i < CG_NCOUNTERS; i++)
		if (hist_kept(&cg_counters[i], HISTORY_SCHEMA_VERSION))
			json_add_u64(o, cg_counters[i].json, counts[i]);
}

static struct json_object *shatter_json(uint64_t shattered, uint64_t failed, uint64_t discarded,
					uint64_t split)
{
	struct json_object *s = json_object_new_object();

	json_add_u64(s, "shattered", shattered);
	json_add_u64(s, "failed", failed);
	json_add_u64(s, "discarded", discarded);
	json_add_u64(s, "split", split);
	return s;
}

/* What a shatter's split did, on every kernel. */
static struct json_object *split_json(const struct report_action *a)
{
	struct json_object *s = json_object_new_object();

	json_add_u64(s, "bytes", a->split_bytes);
	json_add_u64(s, "thps", a->split_thps);
	json_add_u64(s, "partly_mapped", a->split_partial);
	json_add_u64(s, "pages_migrated", a->pages_migrated);
	return s;
}

static struct json_object *actions_json(const struct report_cgroup *c)
{
	struct json_object *list = json_object_new_array();

	for (size_t i = 0; i < c->nactions; i++) {
		const struct report_action *a = &c->actions[i];
		struct json_object *o = json_object_new_object();

		json_add_i64(o, "t_ms", a->t_ms);
		json_add_str_or_null(o, "kind", a->kind);
		json_add_str_or_null(o, "result", a->result);
		json_add_str_or_null(o, "policy", a->policy);
		json_add_i64(o, "pid", a->pid);
		json_add_u64(o, "bytes", a->bytes);
		json_add_i64(o, "err", a->err);
		json_add_str_or_null(o, "detail", a->detail);
		json_add(o, "shatter",
			 a->shatter_counted ? shatter_json(a->shattered, a->shatter_failed,
							   a->shatter_discarded, a->shatter_split)
					    : NULL);
		json_add(o, "split", a->split_counted ? split_json(a) : NULL);
		json_object_array_add(list, o);
	}
	return list;
}

static struct json_object *changes_json(const struct report_cgroup *c)
{
	struct json_object *list = json_object_new_array();

	for (size_t i = 0; i < c->nchanges; i++) {
		struct json_object *o = json_object_new_object();

		json_add_i64(o, "t_ms", c->changes[i].t_ms);
		json_add_str_or_null(o, "from", c->changes[i].from);
		json_add_str_or_null(o, "to", c->changes[i].to);
		json_object_array_add(list, o);
	}
	return list;
}

/* The cgroup's counted shatters summed over the window; null where none counted. */
static struct json_object *shatter_sum_json(const struct report_cgroup *c)
{
	struct report_shatter_sum s = report_cgroup_shatter(c);
	struct json_object *o;

	if (!s.actions)
		return NULL;
	o = shatter_json(s.shattered, s.failed, s.discarded, s.split);
	json_add_u64(o, "actions", s.actions);
	return o;
}

static struct json_object *cgroup_json(const struct report *r, const struct report_cgroup *c)
{
	struct json_object *o = json_object_new_object();
	struct workload_name w;

	json_add_str_or_null(o, "path", c->path);
	workload_name_parse(c->path, &w);
	workload_name_json(o, &w);
	json_add_u64(o, "cgroup_id", c->cgroup_id);
	json_add_i64(o, "first_seen_ms", c->first_seen_ms);
	json_add_i64(o, "last_seen_ms", c->last_seen_ms);
	json_add_bool(o, "present", report_cgroup_present(r, c));
	json_add_str_or_null(o, "class", c->class);
	json_add_u64(o, "samples", c->samples);
	json_add_known(o, "coverage_now_pct", c->coverage_now);
	json_add_known(o, "coverage_min_pct", c->coverage_min);
	json_add_known(o, "coverage_mean_pct", c->coverage_mean);
	json_add_known(o, "coverage_max_pct", c->coverage_max);
	json_add_known(o, "coverage_guarantee_pct", c->guarantee_pct);
	json_add(o, "anon_bytes", c->anon_bytes < 0 ? NULL : json_object_new_int64(c->anon_bytes));
	json_add(o, "thp_bytes", c->thp_bytes < 0 ? NULL : json_object_new_int64(c->thp_bytes));
	add_counts(o, c->thp_alloc, c->counts);
	json_add_double(o, "split_ratio", report_split_ratio(c));
	json_add_u64(o, "thp_alloc_total", c->thp_alloc_total);
	json_add_u64(o, "pmd_split_total", c->pmd_split_total);
	json_add(o, "shatter", shatter_sum_json(c));
	json_add(o, "class_changes", changes_json(c));
	json_add(o, "actions", actions_json(c));
	json_add(o, "sizes", report_sizes_json(c));
	return o;
}

/*
 * TAO kernels: {"counters": [{stat, value, change}], "hvo": {pages,
 * saved_bytes} or null where not counted}; null on a stock kernel.
 */
/* {batches {none, some, full}, rose_to_some, rose_to_full, last, last_why}; null without any. */
static struct json_object *pressure_json(const struct report *r)
{
	const struct report_pressure *p = &r->pressure;
	struct json_object *o, *b;

	if (!report_pressure_batches(r))
		return NULL;
	o = json_object_new_object();
	b = json_object_new_object();
	json_add_u64(b, "none", p->batches[0]);
	json_add_u64(b, "some", p->batches[1]);
	json_add_u64(b, "full", p->batches[2]);
	json_add(o, "batches", b);
	json_add_u64(o, "rose_to_some", p->entered[1]);
	json_add_u64(o, "rose_to_full", p->entered[2]);
	json_add_str_or_null(o, "last", p->last_state);
	json_add_str_or_null(o, "last_why", p->last_why);
	return o;
}

static struct json_object *tao_json(const struct report *r)
{
	struct json_object *o, *list, *hvo = NULL;
	uint64_t pages, saved;

	if (!r->tao.ncounters)
		return NULL;
	o = json_object_new_object();
	list = json_object_new_array();
	for (size_t i = 0; i < r->tao.ncounters; i++) {
		struct json_object *c = json_object_new_object();

		json_add_str_or_null(c, "stat", r->tao.counters[i].stat);
		json_add_u64(c, "value", r->tao.counters[i].value);
		json_add_i64(c, "change", r->tao.counters[i].delta);
		json_object_array_add(list, c);
	}
	json_add(o, "counters", list);
	if (report_hvo(r, &pages, &saved)) {
		hvo = json_object_new_object();
		json_add_u64(hvo, "pages", pages);
		json_add_u64(hvo, "saved_bytes", saved);
	}
	json_add(o, "hvo", hvo);
	return o;
}

/* "12 3 0 1" (order 0 first, as zoneinfo's free_area) as [12, 3, 0, 1]. */
static struct json_object *free_blocks_json(const char *text)
{
	struct json_object *list = json_object_new_array();
	char *end;

	for (const char *p = text;; p = end) {
		unsigned long long n = strtoull(p, &end, 10);

		if (end == p)
			break;
		json_object_array_add(list, json_object_new_uint64(n));
	}
	return list;
}

static struct json_object *machine_json(const struct report *r)
{
	struct json_object *o = json_object_new_object(), *zones = json_object_new_array();
	struct json_object *mthp = json_object_new_array(), *runs = json_object_new_array();

	json_add_i64(o, "first_sample_ms", r->first_sample_ms);
	json_add_i64(o, "last_sample_ms", r->last_sample_ms);
	json_add_u64(o, "batches", r->batches);
	for (size_t i = 0; i < r->nruns; i++)
		json_object_array_add(runs, json_object_new_int64(r->run_starts[i]));
	json_add(o, "daemon_starts_ms", runs);
	json_add_u64(o, "cgroups", r->ncgroups);
	add_counts(o, r->thp_alloc, r->counts);
	for (size_t i = 0; i < r->nzones; i++) {
		struct json_object *z = json_object_new_object();

		json_add_i64(z, "node", r->zones[i].node);
		json_add_str_or_null(z, "zone", r->zones[i].name);
		json_add_u64(z, "present_pages", r->zones[i].present_pages);
		json_add_u64(z, "managed_pages", r->zones[i].managed_pages);
		json_add_u64(z, "free_pages", r->zones[i].free_pages);
		json_add(z, "free_blocks_by_order", free_blocks_json(r->zones[i].free_blocks));
		json_add(z, "order",
			 r->zones[i].order < 0 ? NULL : json_object_new_int(r->zones[i].order));
		json_object_array_add(zones, z);
	}
	json_add(o, "zones", zones);
	for (size_t i = 0; i < r->nmthp; i++) {
		struct json_object *m = json_object_new_object();

		json_add_u64(m, "size_kb", r->mthp[i].size_kb);
		json_add_str_or_null(m, "stat", r->mthp[i].stat);
		json_add_u64(m, "value", r->mthp[i].value);
		json_add_i64(m, "change", r->mthp[i].delta);
		json_object_array_add(mthp, m);
	}
	json_add(o, "mthp", mthp);
	json_add(o, "tao", tao_json(r));
	/* Only where recorded: a report of an older history reads as it did. */
	if (report_pressure_batches(r))
		json_add(o, "contiguity_pressure", pressure_json(r));
	if (report_has_costs(r))
		json_add(o, "action_costs", report_costs_json(r));
	return o;
}

int report_write_json(FILE *f, const struct report *r)
{
	assert(f);
	assert(r);

	struct json_object *o = json_object_new_object(), *list = json_object_new_array();
	char *text;

	json_add_str_or_null(o, "database", r->db);
	json_add_i64(o, "generated_ms", r->generated_ms);
	json_add_i64(o, "since_ms", r->since_ms);
	json_add_i64(o, "until_ms", r->until_ms);
	json_add(o, "machine", machine_json(r));
	for (size_t i = 0; i < r->ncgroups; i++)
		json_object_array_add(list, cgroup_json(r, &r->cgroups[i]));
	json_add(o, "cgroups", list);
	text = json_to_text(o, JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_NOSLASHESCAPE);
	json_object_put(o);
	if (!text)
		return -1;
	fprintf(f, "%s\n", text);
	free(text);
	return ferror(f) ? -1 : 0;
}
