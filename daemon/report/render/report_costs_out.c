// SPDX-License-Identifier: GPL-2.0
/* "actions: cost and benefit" as table, JSON, HTML and CSV (report_costs_out.h). */
#include <json-c/json.h>
#include <stdlib.h>

#include "report_costs_out.h"
#include "common/json_fields.h"
#include "common/utf8.h"

bool report_has_costs(const struct report *r)
{
	return r->costs.npolicy || r->costs.ntenant;
}

static double sum_ms(const uint64_t us[PHASE_MAX])
{
	return (us[PHASE_LEVER] + us[PHASE_COMPACTION] + us[PHASE_DRAIN]) / 1000.0;
}

static void table_group(FILE *f, const char *by, const struct report_cost_group *g)
{
	char *name = text_escape_dup(g->name[0] ? g->name : "-", false);

	fprintf(f,
		"  %s %s %s: %zu actions; taod CPU %.1f ms (%s %.1f, %s %.1f, %s %.1f), wall "
		"%.1f ms; kernel",
		by, name ? name : "?", g->kind, g->actions, sum_ms(g->cpu_us),
		action_phase_name(PHASE_LEVER), g->cpu_us[PHASE_LEVER] / 1000.0,
		action_phase_name(PHASE_COMPACTION), g->cpu_us[PHASE_COMPACTION] / 1000.0,
		action_phase_name(PHASE_DRAIN), g->cpu_us[PHASE_DRAIN] / 1000.0,
		sum_ms(g->wall_us));
	free(name);
	for (unsigned i = 0; i < COST_NCOUNTERS; i++)
		if (g->kernel_present & (1u << i))
			fprintf(f, " %s %llu", cost_counter_name(i),
				(unsigned long long)g->kernel[i]);
	fprintf(f, "; benefit of %zu followed up: free PMD blocks %+lld (%zu read)", g->followed,
		(long long)g->free_regained, g->free_n);
	if (g->coverage_n)
		fprintf(f, ", wanting tenants' coverage %+.1f points (%zu)", g->coverage_change,
			g->coverage_n);
	if (g->fallback_n)
		fprintf(f, ", their fallbacks %.2f/s", g->fallback_rate);
	fputc('\n', f);
}

void report_costs_table(FILE *f, const struct report *r)
{
	if (!report_has_costs(r))
		return;
	fputs("actions: cost and benefit\n", f);
	for (size_t i = 0; i < r->costs.npolicy; i++)
		table_group(f, "policy", &r->costs.by_policy[i]);
	for (size_t i = 0; i < r->costs.ntenant; i++)
		table_group(f, "tenant", &r->costs.by_tenant[i]);
}

static struct json_object *phases_json(const uint64_t us[PHASE_MAX])
{
	struct json_object *o = json_object_new_object();

	for (int p = 0; p < PHASE_MAX; p++)
		json_add_double(o, action_phase_name(p), us[p] / 1000.0);
	return o;
}

static struct json_object *group_json(const char *by, const struct report_cost_group *g)
{
	struct json_object *o = json_object_new_object(), *k = json_object_new_object();

	json_add_str(o, by, g->name);
	json_add_str(o, "action", g->kind);
	json_add_u64(o, "actions", g->actions);
	json_add(o, "cpu_ms", phases_json(g->cpu_us));
	json_add(o, "wall_ms", phases_json(g->wall_us));
	for (unsigned i = 0; i < COST_NCOUNTERS; i++)
		if (g->kernel_present & (1u << i))
			json_add_u64(k, cost_counter_name(i), g->kernel[i]);
	json_add(o, "kernel", k);
	json_add_u64(o, "followed", g->followed);
	json_add(o, "free_pmd_regained",
		 g->free_n ? json_object_new_int64(g->free_regained) : NULL);
	json_add(o, "coverage_change_pct",
		 g->coverage_n ? json_new_double(g->coverage_change) : NULL);
	json_add(o, "fallbacks_per_s", g->fallback_n ? json_new_double(g->fallback_rate) : NULL);
	return o;
}

struct json_object *report_costs_json(const struct report *r)
{
	struct json_object *o = json_object_new_object();
	struct json_object *p = json_object_new_array(), *t = json_object_new_array();

	for (size_t i = 0; i < r->costs.npolicy; i++)
		json_object_array_add(p, group_json("policy", &r->costs.by_policy[i]));
	for (size_t i = 0; i < r->costs.ntenant; i++)
		json_object_array_add(t, group_json("cgroup", &r->costs.by_tenant[i]));
	json_add(o, "by_policy", p);
	json_add(o, "by_tenant", t);
	return o;
}

static void html_rows(FILE *f, const char *by, const struct report_cost_group *v, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		fprintf(f, "<tr><td>%s</td><td>", by);
		html_text(f, v[i].name);
		fprintf(f, "</td><td>%s</td><td>%zu</td><td>%.1f</td><td>%.1f</td><td>%.1f</td>",
			v[i].kind, v[i].actions, v[i].cpu_us[PHASE_LEVER] / 1000.0,
			v[i].cpu_us[PHASE_COMPACTION] / 1000.0, v[i].cpu_us[PHASE_DRAIN] / 1000.0);
		fprintf(f, "<td>%llu</td><td>%zu</td><td>%+lld</td><td>%+.1f</td></tr>\n",
			(unsigned long long)v[i].kernel[COST_pgmigrate_success], v[i].followed,
			(long long)v[i].free_regained, v[i].coverage_change);
	}
}

void report_costs_html(FILE *f, const struct report *r)
{
	if (!report_has_costs(r))
		return;
	fputs("<section class=\"costs\">\n<h2>actions: cost and benefit</h2>\n"
	      "<table><tr><th>by</th><th>name</th><th>action</th><th>actions</th><th>CPU ms "
	      "lever</th><th>compaction</th><th>drain</th><th>pages migrated</th>"
	      "<th>followed</th><th>free PMD blocks regained</th><th>coverage points</th></tr>\n",
	      f);
	html_rows(f, "policy", r->costs.by_policy, r->costs.npolicy);
	html_rows(f, "tenant", r->costs.by_tenant, r->costs.ntenant);
	fputs("</table>\n</section>\n", f);
}

static void csv_rows(FILE *f, const char *by, const struct report_cost_group *v, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		fprintf(f, "%s,", by);
		csv_field(f, v[i].name);
		fprintf(f, ",%s,%zu", v[i].kind, v[i].actions);
		for (int p = 0; p < PHASE_MAX; p++)
			fprintf(f, ",%llu,%llu", (unsigned long long)v[i].cpu_us[p],
				(unsigned long long)v[i].wall_us[p]);
		for (unsigned k = 0; k < COST_NCOUNTERS; k++)
			if (v[i].kernel_present & (1u << k))
				fprintf(f, ",%llu", (unsigned long long)v[i].kernel[k]);
			else
				fputc(',', f);
		fprintf(f, ",%zu,%lld,%.2f,%.4f\r\n", v[i].followed, (long long)v[i].free_regained,
			v[i].coverage_change, v[i].fallback_rate);
	}
}

int report_write_costs_csv(FILE *f, const struct report *r)
{
	fputs("by,name,action,actions", f);
	for (int p = 0; p < PHASE_MAX; p++)
		fprintf(f, ",cpu_us_%s,wall_us_%s", action_phase_name(p), action_phase_name(p));
	for (unsigned k = 0; k < COST_NCOUNTERS; k++)
		fprintf(f, ",%s", cost_counter_name(k));
	fputs(",followed,free_pmd_regained,coverage_change_pct,fallbacks_per_s\r\n", f);
	csv_rows(f, "policy", r->costs.by_policy, r->costs.npolicy);
	csv_rows(f, "tenant", r->costs.by_tenant, r->costs.ntenant);
	return ferror(f) ? -1 : 0;
}
