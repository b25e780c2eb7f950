// SPDX-License-Identifier: GPL-2.0
#define _GNU_SOURCE /* qsort_r */
#include "commands.h"
#include "common/json_fields.h"

#include <errno.h>
#include <fnmatch.h>
#include <stdio.h>
#include <json-c/json.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "act/act.h"
#include "cgroup_sort.h"
#include "explain.h"
#include "privacy.h"
#include "thp_settings.h"
#include "report/metrics/metrics.h"
#include "observe/thp_observe.h"
#include "taod/protocol.h"
#include "common/log.h"
#include "common/rootfs.h"
#include "observe/task_rows.h"
#include "common/version.h"

struct command {
	const char *name;
	bool needs_root; /* changes state, or readers = root */
	command_fn run;
	/* Reads what tenants control (maps, files): answered off the loop in
	 * this time (command_off_loop); 0: on the loop. */
	uint64_t off_loop_ms;
	/* Its reply is filtered row by row for a reader who does not see all:
	 * such a reader's request is answered off the loop. */
	bool filtered;
};

static struct json_object *cmd_ping(struct taod *d, struct json_object *req)
{
	(void)d;
	(void)req;
	return protocol_ok();
}

static struct json_object *events_json(const struct taod *d)
{
	static const char *const names[TAOD_STAT_MAX] = {
	    [TAOD_STAT_MEMCG_EVENTS] = "memcg_events",
	    [TAOD_STAT_LRUVEC_EVENTS] = "lruvec_events",
	    [TAOD_STAT_PAGE_ALLOC_EVENTS] = "page_alloc_events",
	    [TAOD_STAT_SPLIT_EVENTS] = "split_events",
	    [TAOD_STAT_PENDING_FLUSHED] = "pending_flushed",
	    [TAOD_STAT_THP_PATH_EVENTS] = "thp_path_events",
	    [TAOD_STAT_MTHP_EVENTS] = "mthp_events",
	    [TAOD_STAT_CG_COUNTERS_FULL] = "cg_counters_full",
	    [TAOD_STAT_CG_SIZES_FULL] = "cg_sizes_full",
	    [TAOD_STAT_QUEUED_FOLIOS_FULL] = "queued_folios_full",
	};
	struct json_object *o = json_object_new_object();
	uint64_t total = 0;

	for (int i = 0; i < TAOD_STAT_MAX; i++) {
		json_add_u64(o, names[i], d->bpf_stats[i]);
		/* The flush and the full maps count no event of their own. */
		if (i != TAOD_STAT_PENDING_FLUSHED && i < TAOD_STAT_CG_COUNTERS_FULL)
			total += d->bpf_stats[i];
	}
	json_add_u64(o, "total", total);
	return o;
}

/* The BPF per-cgroup maps: their size, cg_counters' rows in use, and the
 * events that found them full. */
static struct json_object *cgroup_maps_json(const struct taod *d)
{
	struct json_object *o = json_object_new_object();

	json_add_u64(o, "entries", d->cfg->cgroup_map_entries);
	json_add_u64(o, "counters_rows", thp_observe_cgroup_rows(d->obs));
	json_add_u64(o, "counters_full", d->bpf_stats[TAOD_STAT_CG_COUNTERS_FULL]);
	json_add_u64(o, "sizes_full", d->bpf_stats[TAOD_STAT_CG_SIZES_FULL]);
	return o;
}

/* The TAO probe table: one row per feature, with the file and what it said. */
static struct json_object *features_json(const struct kernel_info *k)
{
	struct json_object *list = json_object_new_array();

	for (int f = 0; f < TAO_FEATURE_MAX; f++) {
		struct json_object *o = json_object_new_object();

		json_add_str(o, "name", tao_feature_name(f));
		json_add_bool(o, "present", k->feat[f].present);
		json_add_str(o, "probe", k->feat[f].probe);
		json_add_str(o, "why", k->feat[f].why);
		json_object_array_add(list, o);
	}
	return list;
}

/*
 * The TAO levers a missing file changes: each with how it is carried out
 * here, or why it is not (tao-kernel-abi.md 2a/2b). Empty on stock.
 */
static const struct lever_row {
	enum action_kind action;
	enum tao_feature needs;
	const char *without; /* what happens on a kernel without it */
} lever_rows[] = {
    {ACTION_RESTRICT, TAO_MEMCG_THP_ZONES, "unsupported: the ladder's next rung acts instead"},
    {ACTION_GRANT, TAO_MEMCG_THP_ZONES, "unsupported: rewards collapse instead"},
    {ACTION_SHATTER, TAO_MEMCG_THP_SHATTER,
     "through the split path: the kernel shatters THPs in the zones"},
    {ACTION_RESIZE_ZONES, TAO_HOTPLUG_ZONES,
     "unsupported: the zones are sized at boot (taoctl zones)"},
};

static struct json_object *levers_json(const struct kernel_info *k)
{
	struct json_object *list = json_object_new_array();

	for (size_t i = 0; k->kind == KERNEL_TAO && i < sizeof(lever_rows) / sizeof(*lever_rows);
	     i++) {
		const struct lever_row *l = &lever_rows[i];
		struct json_object *o;

		if (k->feat[l->needs].present)
			continue;
		o = json_object_new_object();
		json_add_str(o, "action", action_kind_name(l->action));
		json_add_str(o, "how", l->without);
		json_add_str(o, "why", k->feat[l->needs].why);
		json_object_array_add(list, o);
	}
	return list;
}

/* Per program run counts and time (kernel.bpf_stats_enabled = 1). */
static struct json_object *programs_json(const struct taod *d)
{
	/* Every program of the object: more than 16 load in THP paths mode
	 * with the per-size programs, and a cost not listed is not measured. */
	struct bpf_prog_cost costs[48];
	struct json_object *list = json_object_new_array();
	int n = thp_observe_costs(d->obs, costs, sizeof(costs) / sizeof(costs[0]));

	for (int i = 0; i < n; i++) {
		struct json_object *o = json_object_new_object();

		json_add_str(o, "name", costs[i].name);
		json_add_u64(o, "run_cnt", costs[i].run_cnt);
		json_add_u64(o, "run_time_ns", costs[i].run_time_ns);
		json_object_array_add(list, o);
	}
	return list;
}

static struct json_object *sink_json(const struct sink_health *h, const char *path)
{
	struct json_object *o = json_object_new_object();

	json_add_str(o, "state", sink_state_name(h ? h->state : SINK_OFF));
	json_add_str(o, "path", path ? path : "");
	json_add_u64(o, "failing_since_ms", h ? h->failing_since_ms : 0);
	json_add_str(o, "last_error", h ? h->last_error : "");
	json_add_u64(o, "errors", h ? h->errors : 0);
	json_add_u64(o, "records_lost", h ? h->records_lost : 0);
	return o;
}

/* The output sinks' health: a failing one is visible without the journal. */
static struct json_object *sinks_json(const struct taod *d)
{
	struct json_object *o = json_object_new_object();
	struct metrics_input in;

	taod_metrics_input(d, &in);
	json_add(o, "history", sink_json(in.sinks[SINK_HISTORY], d->report.history.path));
	json_add(o, "audit", sink_json(in.sinks[SINK_AUDIT], d->cfg->enforce.audit_log));
	json_add(o, "textfile", sink_json(in.sinks[SINK_TEXTFILE], d->cfg->metrics_textfile));
	return o;
}

/* Warnings said once: how often each came since (log_repeated). */
static struct json_object *repeats_json(void)
{
	struct json_object *o = json_object_new_object();

	for (int r = 0; r < LOG_REPEAT_MAX; r++)
		json_add_u64(o, log_repeat_key(r), log_repeat_count(r));
	return o;
}

static struct json_object *cmd_status(struct taod *d, struct json_object *req)
{
	struct json_object *o = protocol_ok(), *k = json_object_new_object();

	(void)req;
	json_add_str(o, "version", taod_version());
	json_add_u64(o, "protocol", PROTOCOL_VERSION);
	json_add_u64(o, "pid", (uint64_t)getpid());
	json_add_u64(o, "uptime_s", (monotonic_ms() - d->start_ms) / 1000);
	json_add_str(k, "kind", kernel_kind_name(d->kernel.kind));
	json_add_str(k, "why", d->kernel.why);
	json_add_str(k, "release", d->kernel.release);
	json_add(k, "features", features_json(&d->kernel));
	json_add(k, "levers", levers_json(&d->kernel));
	json_add(o, "kernel", k);
	json_add_str(o, "observation_mode", thp_observe_mode(d->obs));
	json_add_str(o, "observation_reason", thp_observe_mode_reason(d->obs));
	json_add_str(o, "mthp_observation", thp_observe_sizes_mode(d->obs));
	json_add(o, "thp", thp_settings_json(d->cfg->k.thp_sysfs));
	json_add_u64(o, "cgroup_version", (uint64_t)d->tree.version);
	json_add_str(o, "cgroup_root", d->tree.mount);
	json_add_u64(o, "cgroups_tracked", d->cgroups.n);
	json_add_u64(o, "tree_walks", d->tree_walks);
	json_add_u64(o, "tree_backlog", d->tree_backlog.n);
	json_add_u64(o, "tree_gone_backlog", d->removed_left);
	json_add(o, "events", events_json(d));
	json_add(o, "cgroup_maps", cgroup_maps_json(d));
	json_add(o, "programs", programs_json(d));
	json_add_u64(o, "ticks", d->ticks);
	json_add_u64(o, "tick_ms", d->cfg->tick_ms);
	json_add_u64(o, "last_tick_cost_us", d->last_tick_cost_us);
	json_add_str(o, "config", d->config_path);
	json_add_str(o, "root", rootfs_get());
	json_add_str(o, "backend", actor_backend_name(d->actor));
	json_add(o, "act", act_status_json(d));
	json_add(o, "decide", decide_status_json(d));
	json_add(o, "contiguity_pressure", pressure_status_json(d));
	json_add(o, "action_benefit", benefit_status_json(d));
	json_add(o, "sinks", sinks_json(d));
	json_add(o, "repeated_warnings", repeats_json());
	return o;
}

static double sort_value(const struct cgroup_entry *e, const char *key)
{
	uint64_t allocs = cg_thp_allocs(&e->counters);

	if (!strcmp(key, "anon"))
		return e->mem_ok ? (double)e->mem.anon_bytes : 0;
	if (!strcmp(key, "thp"))
		return e->mem_ok ? (double)e->mem.thp_bytes : 0;
	if (!strcmp(key, "coverage"))
		return e->coverage_pct;
	if (!strcmp(key, "allocs"))
		return (double)allocs;
	if (!strcmp(key, "splits"))
		return (double)e->counters.pmd_split;
	if (!strcmp(key, "alloc_rate"))
		return e->alloc_rate;
	if (!strcmp(key, "split_rate"))
		return e->split_rate;
	return cg_split_ratio(e->counters.pmd_split, allocs);
}

static int compare_rows(const void *a, const void *b, void *sort_key)
{
	const char *key = sort_key;
	const struct cgroup_entry *x = *(struct cgroup_entry *const *)a;
	const struct cgroup_entry *y = *(struct cgroup_entry *const *)b;
	double vx, vy;

	if (!strcmp(key, "path"))
		return strcmp(x->path, y->path);
	vx = sort_value(x, key);
	vy = sort_value(y, key);
	if (vx != vy)
		return vx < vy ? 1 : -1;
	return strcmp(x->path, y->path);
}

static struct json_object *cmd_cgroups(struct taod *d, struct json_object *req)
{
	const char *glob = "*", *sort = "path";
	struct cgroup_entry **rows;
	char keys[160];
	struct json_object *o, *list;
	size_t n = 0;

	if (protocol_arg_string(req, "glob", &glob) == -EINVAL ||
	    protocol_arg_string(req, "sort", &sort) == -EINVAL)
		return protocol_error("args.glob and args.sort must be strings");
	cgroup_sort_key_words(keys, sizeof(keys));
	if (!cgroup_sort_key_valid(sort))
		return protocol_errorf("args.sort: unknown key \"%s\" (%s)", sort, keys);
	rows = calloc(d->cgroups.n + 1, sizeof(*rows));
	if (!rows)
		return protocol_error("out of memory");
	for (size_t i = 0; i < d->cgroups.n; i++) {
		struct cgroup_entry *e = d->cgroups.v[i];

		if (e->path && !fnmatch(glob, e->path, 0))
			rows[n++] = e;
	}
	qsort_r(rows, n, sizeof(*rows), compare_rows, (void *)sort);
	list = json_object_new_array();
	for (size_t i = 0; i < n; i++) {
		struct json_object *row = protocol_cgroup_row(rows[i]);

		protocol_add_partly_mapped(row, rows[i], d->cgroups.partial_gauge);

		json_add(row, "verdict", tenant_verdict_json(d, rows[i]->id));
		json_add(row, "memory_pressure_some",
			 rows[i]->psi_some < 0 ? NULL : json_object_new_double(rows[i]->psi_some));
		json_object_array_add(list, row);
	}
	free(rows);
	o = protocol_ok();
	json_add(o, "cgroups", list);
	return o;
}

bool task_alive(uint32_t tgid)
{
	char rel[64], path[PATH_MAX];

	snprintf(rel, sizeof(rel), "/proc/%u", tgid);
	return !rootfs_path(path, sizeof(path), rel) && !access(path, F_OK);
}

/* The task's folio size mix below the PMD (fentry only; [] elsewhere). */
static struct json_object *task_sizes_json(struct taod *d, uint32_t tgid)
{
	struct taod_task_sizes s;

	if (thp_observe_task_sizes(d->obs, tgid, &s))
		return json_object_new_array();
	return protocol_size_mix(&s);
}

static struct json_object *task_json(struct taod *d, const struct task_row *t)
{
	const struct cgroup_entry *e = cgroup_table_find(&d->cgroups, t->c.cgroup_id);
	struct json_object *o = json_object_new_object();

	json_add_u64(o, "pid", t->tgid);
	json_add_str(o, "comm", t->c.comm);
	json_add_u64(o, "cgroup_id", t->c.cgroup_id);
	if (e && e->path)
		json_add_str(o, "cgroup", e->path);
	else
		json_add(o, "cgroup", NULL);
	json_add_bool(o, "alive", task_alive(t->tgid));
	json_add_u64(o, "thp_fault_alloc", t->c.thp_fault_alloc);
	json_add_u64(o, "pmd_split", t->c.pmd_split);
	json_add_u64(o, "pmd_split_pages", t->c.pmd_split_pages);
	json_add_u64(o, "pmd_unmap_whole", t->c.pmd_unmap_whole);
	json_add_u64(o, "split_exact", t->c.split_exact);
	json_add_u64(o, "large_folio_alloc", t->c.large_folio_alloc);
	json_add_u64(o, "mthp_fault_alloc", t->c.mthp_fault_alloc);
	json_add_u64(o, "mthp_partial_unmap", t->c.mthp_partial);
	json_add_u64(o, "mthp_split", t->c.mthp_split);
	json_add(o, "split_causes", explain_causes_json(t->c.pmd_split_by_cause));
	json_add(o, "sizes", task_sizes_json(d, t->tgid));
	return o;
}

static struct json_object *cmd_top_tasks(struct taod *d, struct json_object *req)
{
	int64_t limit = 20;
	const char *glob = NULL;
	struct task_row *rows;
	struct json_object *o, *list;
	size_t n;
	int r = protocol_arg_int(req, "limit", 1, TAOD_MAX_TASKS, &limit);

	if (r == -EINVAL || r == -ERANGE)
		return protocol_errorf("args.limit must be an integer from 1 to %d",
				       TAOD_MAX_TASKS);
	if (protocol_arg_string(req, "glob", &glob) == -EINVAL)
		return protocol_error("args.glob must be a string");
	rows = calloc(TAOD_MAX_TASKS, sizeof(*rows));
	if (!rows)
		return protocol_error("out of memory");
	n = task_rows_collect(d->obs, rows, TAOD_MAX_TASKS);
	list = json_object_new_array();
	for (size_t i = 0; i < n && (int64_t)json_object_array_length(list) < limit; i++) {
		const struct cgroup_entry *e = cgroup_table_find(&d->cgroups, rows[i].c.cgroup_id);

		if (glob && (!e || !e->path || fnmatch(glob, e->path, 0)))
			continue;
		json_object_array_add(list, task_json(d, &rows[i]));
	}
	free(rows);
	o = protocol_ok();
	json_add(o, "tasks", list);
	return o;
}

/* Prometheus text exposition, the same as the textfile. */
static struct json_object *cmd_metrics(struct taod *d, struct json_object *req)
{
	struct metrics_input in;
	struct json_object *o;
	char *text;

	(void)req;
	if (d->report.machine)
		machine_stats_read(&d->cfg->k, d->report.machine);
	taod_metrics_input(d, &in);
	text = metrics_text(&in);
	if (!text)
		return protocol_error("out of memory");
	o = protocol_ok();
	json_add_str(o, "text", text);
	free(text);
	return o;
}

static const struct command commands[] = {
    {"ping", false, cmd_ping},
    {"status", false, cmd_status},
    {"cgroups", false, cmd_cgroups, 0, true},
    {"top-tasks", false, cmd_top_tasks, 0, true},
    {"actions", false, cmd_actions, 0, true},
    {"act", true, cmd_act},
    {"policy", false, cmd_policy},
    {"abusers", false, cmd_abusers, 0, true},
    {"reload", true, cmd_reload},
    {"metrics", false, cmd_metrics},
    {"zones", false, cmd_zones},
    {"zones-apply", true, cmd_zones_apply},
    {"explain", false, cmd_explain, EXPLAIN_TIME_MS},
};

struct json_object *commands_dispatch(void *taod, const struct peer *peer,
				      struct json_object *request)
{
	struct taod *d = taod;
	const char *name = protocol_command(request);
	struct json_object *denied;

	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++) {
		const struct command *c = &commands[i];

		if (strcmp(c->name, name))
			continue;
		if ((c->needs_root || d->cfg->readers == READERS_ROOT) && peer->uid != 0)
			return protocol_errorf(
			    "permission denied: \"%s\" needs root (uid %u asked)", name,
			    (unsigned)peer->uid);
		denied = privacy_precheck(d, peer, name, request);
		if (denied)
			return denied;
		if (c->off_loop_ms || (c->filtered && !peer->sees_all))
			return command_off_loop(d, peer, name, c->run, request,
						c->off_loop_ms ? c->off_loop_ms : READER_TIME_MS);
		return privacy_filter(d, peer, name, c->run(d, request));
	}
	return protocol_errorf("unknown command \"%s\"", name);
}
