// SPDX-License-Identifier: GPL-2.0
/* `taoctl report --format json`: the whole report as one JSON object. */
#include <json-c/json.h>

#include "taod/report.h"

static void add_i64(struct json_object *o, const char *k, int64_t v)
{
	json_object_object_add(o, k, json_object_new_int64(v));
}

static void add_u64(struct json_object *o, const char *k, uint64_t v)
{
	json_object_object_add(o, k, json_object_new_uint64(v));
}

static void add_str(struct json_object *o, const char *k, const char *v)
{
	json_object_object_add(o, k, v && *v ? json_object_new_string(v) : NULL);
}

/* A figure, or null when unknown (negative). */
static void add_known(struct json_object *o, const char *k, double v)
{
	json_object_object_add(o, k, v < 0 ? NULL : json_object_new_double(v));
}

static struct json_object *actions_json(const struct report_cgroup *c)
{
	struct json_object *list = json_object_new_array();

	for (size_t i = 0; i < c->nactions; i++) {
		const struct report_action *a = &c->actions[i];
		struct json_object *o = json_object_new_object();

		add_i64(o, "t_ms", a->t_ms);
		add_str(o, "kind", a->kind);
		add_str(o, "result", a->result);
		add_str(o, "policy", a->policy);
		add_i64(o, "pid", a->pid);
		add_u64(o, "bytes", a->bytes);
		add_i64(o, "err", a->err);
		add_str(o, "detail", a->detail);
		json_object_array_add(list, o);
	}
	return list;
}

static struct json_object *changes_json(const struct report_cgroup *c)
{
	struct json_object *list = json_object_new_array();

	for (size_t i = 0; i < c->nchanges; i++) {
		struct json_object *o = json_object_new_object();

		add_i64(o, "t_ms", c->changes[i].t_ms);
		add_str(o, "from", c->changes[i].from);
		add_str(o, "to", c->changes[i].to);
		json_object_array_add(list, o);
	}
	return list;
}

static struct json_object *cgroup_json(const struct report *r, const struct report_cgroup *c)
{
	struct json_object *o = json_object_new_object();

	add_str(o, "path", c->path);
	add_u64(o, "cgroup_id", c->cgroup_id);
	add_i64(o, "first_seen_ms", c->first_seen_ms);
	add_i64(o, "last_seen_ms", c->last_seen_ms);
	json_object_object_add(o, "present", json_object_new_boolean(report_cgroup_present(r, c)));
	add_str(o, "class", c->class);
	add_u64(o, "samples", c->samples);
	add_known(o, "coverage_now_pct", c->coverage_now);
	add_known(o, "coverage_min_pct", c->coverage_min);
	add_known(o, "coverage_mean_pct", c->coverage_mean);
	add_known(o, "coverage_max_pct", c->coverage_max);
	json_object_object_add(o, "anon_bytes",
			       c->anon_bytes < 0 ? NULL : json_object_new_int64(c->anon_bytes));
	json_object_object_add(o, "thp_bytes",
			       c->thp_bytes < 0 ? NULL : json_object_new_int64(c->thp_bytes));
	add_u64(o, "thp_alloc", c->thp_alloc);
	add_u64(o, "pmd_split", c->pmd_split);
	add_u64(o, "pmd_unmap_whole", c->pmd_unmap_whole);
	json_object_object_add(o, "split_ratio", json_object_new_double(report_split_ratio(c)));
	add_u64(o, "thp_alloc_total", c->thp_alloc_total);
	add_u64(o, "pmd_split_total", c->pmd_split_total);
	json_object_object_add(o, "class_changes", changes_json(c));
	json_object_object_add(o, "actions", actions_json(c));
	return o;
}

static struct json_object *machine_json(const struct report *r)
{
	struct json_object *o = json_object_new_object(), *zones = json_object_new_array();
	struct json_object *mthp = json_object_new_array(), *runs = json_object_new_array();

	add_i64(o, "first_sample_ms", r->first_sample_ms);
	add_i64(o, "last_sample_ms", r->last_sample_ms);
	add_u64(o, "batches", r->batches);
	for (size_t i = 0; i < r->nruns; i++)
		json_object_array_add(runs, json_object_new_int64(r->run_starts[i]));
	json_object_object_add(o, "daemon_starts_ms", runs);
	add_u64(o, "cgroups", r->ncgroups);
	add_u64(o, "thp_alloc", r->thp_alloc);
	add_u64(o, "pmd_split", r->pmd_split);
	add_u64(o, "pmd_unmap_whole", r->pmd_unmap_whole);
	for (size_t i = 0; i < r->nzones; i++) {
		struct json_object *z = json_object_new_object();

		add_i64(z, "node", r->zones[i].node);
		add_str(z, "zone", r->zones[i].name);
		add_u64(z, "present_pages", r->zones[i].present_pages);
		add_u64(z, "managed_pages", r->zones[i].managed_pages);
		add_u64(z, "free_pages", r->zones[i].free_pages);
		add_str(z, "free_blocks_by_order", r->zones[i].free_blocks);
		json_object_array_add(zones, z);
	}
	json_object_object_add(o, "zones", zones);
	for (size_t i = 0; i < r->nmthp; i++) {
		struct json_object *m = json_object_new_object();

		add_u64(m, "size_kb", r->mthp[i].size_kb);
		add_str(m, "stat", r->mthp[i].stat);
		add_u64(m, "value", r->mthp[i].value);
		add_i64(m, "change", r->mthp[i].delta);
		json_object_array_add(mthp, m);
	}
	json_object_object_add(o, "mthp", mthp);
	return o;
}

int report_write_json(FILE *f, const struct report *r)
{
	struct json_object *o = json_object_new_object(), *list = json_object_new_array();

	add_str(o, "database", r->db);
	add_i64(o, "generated_ms", r->generated_ms);
	add_i64(o, "since_ms", r->since_ms);
	add_i64(o, "until_ms", r->until_ms);
	json_object_object_add(o, "machine", machine_json(r));
	for (size_t i = 0; i < r->ncgroups; i++)
		json_object_array_add(list, cgroup_json(r, &r->cgroups[i]));
	json_object_object_add(o, "cgroups", list);
	fprintf(f, "%s\n",
		json_object_to_json_string_ext(o, JSON_C_TO_STRING_PRETTY |
						      JSON_C_TO_STRING_NOSLASHESCAPE));
	json_object_put(o);
	return ferror(f) ? -1 : 0;
}
