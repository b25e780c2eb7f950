// SPDX-License-Identifier: GPL-2.0
/* taoctl status, cgroups, top-tasks, explain: what the observation stage sees. */
#include <getopt.h>
#include <stdint.h>
#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "client.h"
#include "cmd_sizes.h"
#include "subcommands.h"
#include "format.h"
#include "workload_column.h"
#include "control/cgroup_sort.h"
#include "control/explain.h"
#include "observe/size_events.h"
#include "common/json_fields.h"
#include "common/busiest.h"

/* TAO kernels only: the policy zones, their counters and the HVO saving. */
static void print_tao_figures(struct json_object *act, struct json_object *zones)
{
	char ns[32], nm[32], blk[32], hvo[32], dem[32], tgt[32];

	if (!jget(act, "nosplit_bytes"))
		return;
	printf("zones:       NoSplit %s, NoMerge %s",
	       fmt_bytes(ns, sizeof(ns), jget_u64(act, "nosplit_bytes")),
	       fmt_bytes(nm, sizeof(nm), jget_u64(act, "nomerge_bytes")));
	if (jget_u64(act, "block_bytes"))
		printf(" (blocks of %s)",
		       fmt_bytes(blk, sizeof(blk), jget_u64(act, "block_bytes")));
	else
		printf(" (sized at boot: taoctl zones)");
	if (zones)
		printf("; demand %s of %llu guaranteed cgroups, target %s, %llu resizes asked",
		       fmt_bytes(dem, sizeof(dem), jget_u64(zones, "demand_bytes")),
		       (unsigned long long)jget_u64(zones, "guaranteed_cgroups"),
		       fmt_bytes(tgt, sizeof(tgt), jget_u64(zones, "target_bytes")),
		       (unsigned long long)jget_u64(zones, "resize_requests"));
	printf("\nvmstat:      pgalloc_nosplit %llu, pgalloc_nomerge %llu, thp_shatter_page %llu "
	       "(failed %llu, discarded %llu)\n",
	       (unsigned long long)jget_u64(act, "pgalloc_nosplit"),
	       (unsigned long long)jget_u64(act, "pgalloc_nomerge"),
	       (unsigned long long)jget_u64(act, "thp_shatter_page"),
	       (unsigned long long)jget_u64(act, "thp_shatter_page_failed"),
	       (unsigned long long)jget_u64(act, "thp_shatter_page_discarded"));
	if (!jget(act, "thp_hvo_page"))
		printf("hvo:         not counted by this kernel (no thp_hvo_page in vmstat)\n");
	else
		printf("hvo:         %llu THPs, %s of vmemmap saved (28 KiB each)\n",
		       (unsigned long long)jget_u64(act, "thp_hvo_page"),
		       fmt_bytes(hvo, sizeof(hvo), jget_u64(act, "hvo_saved_bytes")));
}

/*
 * One line per TAO feature the kernel was probed for, then the levers it
 * changes; on a stock kernel the one line that says none applies.
 */
static void print_features(struct json_object *k)
{
	struct json_object *features = jget(k, "features"), *levers = jget(k, "levers");
	size_t n = features ? json_object_array_length(features) : 0;

	if (strcmp(jget_text(k, "kind"), "tao")) {
		printf("tao:         not a TAO kernel\n");
		return;
	}

	for (size_t i = 0; i < n; i++) {
		struct json_object *f = json_object_array_get_idx(features, i);

		printf("  %-18s %-3s  %s\n", jget_text(f, "name"),
		       json_object_get_boolean(jget(f, "present")) ? "yes" : "no",
		       jget_text(f, "why"));
	}
	n = levers ? json_object_array_length(levers) : 0;
	for (size_t i = 0; i < n; i++) {
		struct json_object *l = json_object_array_get_idx(levers, i);

		printf("  %-18s %s\n", jget_text(l, "action"), jget_text(l, "how"));
	}
}

/* The kernel's THP settings: the PMD size's, then each smaller size's enabled. */
static void print_thp(struct json_object *t)
{
	struct json_object *sizes = jget(t, "sizes");
	size_t n = sizes ? json_object_array_length(sizes) : 0;

	printf("thp:         enabled %s, defrag %s; khugepaged defrag %s, max_ptes_none %s\n",
	       jget_text(t, "enabled"), jget_text(t, "defrag"), jget_text(t, "khugepaged_defrag"),
	       jget_text(t, "max_ptes_none"));
	if (!n)
		return;
	printf("thp sizes:  ");
	for (size_t i = 0; i < n; i++) {
		struct json_object *s = json_object_array_get_idx(sizes, i);

		printf(" %llukB %s%s", (unsigned long long)jget_u64(s, "size_kb"),
		       jget_text(s, "enabled"), i + 1 < n ? "," : "\n");
	}
}

/* One line per output sink: ok, off, or failing since when, why, and what was lost. */
static void print_sinks(struct json_object *sinks)
{
	static const char *const names[][2] = {
	    {"history", "history:"}, {"audit", "audit log:"}, {"textfile", "textfile:"}};

	for (size_t i = 0; sinks && i < sizeof(names) / sizeof(names[0]); i++) {
		struct json_object *s = jget(sinks, names[i][0]);
		const char *state = jget_text(s, "state");
		time_t since = (time_t)(jget_u64(s, "failing_since_ms") / 1000);
		char when[32] = "";

		printf("%-12s %s", names[i][1], state);
		if (!strcmp(state, "off")) {
			printf("\n");
			continue;
		}
		if (!strcmp(state, "failing"))
			strftime(when, sizeof(when), " since %F %T UTC", gmtime(&since));
		printf("%s, %s; %llu errors, %llu records lost", when, jget_text(s, "path"),
		       (unsigned long long)jget_u64(s, "errors"),
		       (unsigned long long)jget_u64(s, "records_lost"));
		if (*jget_text(s, "last_error"))
			printf("; last error: %s", jget_text(s, "last_error"));
		printf("\n");
	}
}

/* "cgroup maps: 16384 entries, 12 in use; never full" */
static void print_cgroup_maps(struct json_object *m)
{
	uint64_t counters = jget_u64(m, "counters_full"), sizes = jget_u64(m, "sizes_full");

	if (!m)
		return;
	printf("cgroup maps: %llu entries, %llu in use; ",
	       (unsigned long long)jget_u64(m, "entries"),
	       (unsigned long long)jget_u64(m, "counters_rows"));
	if (!counters && !sizes) {
		printf("never full\n");
		return;
	}
	printf("FULL: %llu events counted in the overflow map (its busiest cgroups kept), "
	       "%llu per-size events lost; raise [kernel] cgroup_map_entries\n",
	       (unsigned long long)counters, (unsigned long long)sizes);
}

/* "pressure:    some for 12 s: free_pmd_blocks=40 (< 64); 1 tenant wanting" */
static void print_pressure(struct json_object *p)
{
	const char *why = jget_text(p, "why");

	printf("pressure:    %s for %llu s%s%s; %llu tenants wanting, %llu strikes held at warn\n",
	       jget_text(p, "state"), (unsigned long long)(jget_u64(p, "for_ms") / 1000),
	       *why ? ": " : "", why, (unsigned long long)jget_u64(p, "wanting_tenants"),
	       (unsigned long long)jget_u64(p, "held_strikes"));
	if (*jget_text(p, "read_error"))
		printf("             reading its inputs: %s\n", jget_text(p, "read_error"));
}

/* Action kinds whose last actions bought next to nothing, in numbers. */
static void print_benefit(struct json_object *list)
{
	size_t n = list ? json_object_array_length(list) : 0;

	for (size_t i = 0; i < n; i++) {
		struct json_object *b = json_object_array_get_idx(list, i);

		if (json_object_get_boolean(jget(b, "near_zero")))
			printf("benefit:     %s flagged: %s\n", jget_text(b, "action"),
			       jget_text(b, "why"));
	}
}

int taoctl_status(const struct taoctl *ctl, int argc, char **argv)
{
	struct json_object *r, *k, *ev, *dec;
	char tick[32];
	int rc;

	(void)argc;
	(void)argv;
	rc = taoctl_request(ctl, "status", NULL, &r);
	if (rc)
		return rc;
	if (ctl->json) {
		print_json(r);
		json_object_put(r);
		return 0;
	}
	k = jget(r, "kernel");
	ev = jget(r, "events");
	printf("taod %s (pid %llu), up %llu s\n", jget_text(r, "version"),
	       (unsigned long long)jget_u64(r, "pid"), (unsigned long long)jget_u64(r, "uptime_s"));
	printf("kernel:      %s, %s (%s)\n", jget_text(k, "release"), jget_text(k, "kind"),
	       jget_text(k, "why"));
	print_features(k);
	print_thp(jget(r, "thp"));
	printf("observation: %s (%s)\n", jget_text(r, "observation_mode"),
	       jget_text(r, "observation_reason"));
	printf("mthp sizes:  %s\n", jget_text(r, "mthp_observation"));
	printf("cgroups:     %llu tracked, v%llu at %s\n",
	       (unsigned long long)jget_u64(r, "cgroups_tracked"),
	       (unsigned long long)jget_u64(r, "cgroup_version"), jget_text(r, "cgroup_root"));
	printf("events:      %llu seen (memcg %llu, lruvec %llu, page alloc %llu, split %llu)\n",
	       (unsigned long long)jget_u64(ev, "total"),
	       (unsigned long long)jget_u64(ev, "memcg_events"),
	       (unsigned long long)jget_u64(ev, "lruvec_events"),
	       (unsigned long long)jget_u64(ev, "page_alloc_events"),
	       (unsigned long long)jget_u64(ev, "split_events"));
	printf("act:         %s backend, %s mode, %llu actions audited\n", jget_text(r, "backend"),
	       jget_text(jget(r, "act"), "mode"),
	       (unsigned long long)jget_u64(jget(r, "act"), "audited"));
	print_tao_figures(jget(r, "act"), jget(jget(r, "decide"), "zones"));
	dec = jget(r, "decide");
	printf("decide:      %llu policies; %llu cgroups in %llu tenants: %llu good, %llu misuser, "
	       "%llu abuser; actions reach %llu tenants; %llu requests\n",
	       (unsigned long long)jget_u64(dec, "policies"),
	       (unsigned long long)jget_u64(dec, "cgroups"),
	       (unsigned long long)jget_u64(dec, "tenants"),
	       (unsigned long long)jget_u64(dec, "good"),
	       (unsigned long long)jget_u64(dec, "misuser"),
	       (unsigned long long)jget_u64(dec, "abuser"),
	       (unsigned long long)jget_u64(dec, "tenants_actions_reach"),
	       (unsigned long long)jget_u64(dec, "requests"));
	printf("ticks:       %llu every %s, last took %llu us\n",
	       (unsigned long long)jget_u64(r, "ticks"),
	       fmt_duration(tick, sizeof(tick), jget_u64(r, "tick_ms")),
	       (unsigned long long)jget_u64(r, "last_tick_cost_us"));
	print_cgroup_maps(jget(r, "cgroup_maps"));
	print_pressure(jget(r, "contiguity_pressure"));
	print_benefit(jget(r, "action_benefit"));
	print_sinks(jget(r, "sinks"));
	json_object_put(r);
	return 0;
}

static const char *score_text(double score)
{
	static char buf[16];

	snprintf(buf, sizeof(buf), "%.2f", score);
	return buf;
}

/* The tenant's class, and why it is not what the score says: "-" if never judged. */
static const char *verdict_text(char *buf, size_t len, struct json_object *row)
{
	struct json_object *v = jget(row, "verdict");
	const char *cls = jget_str(v, "class"); /* "-" for null: never judged */

	if (json_object_get_type(jget(v, "held")) != json_type_string)
		return cls;
	snprintf(buf, len, "%s (held: %s)", cls, jget_text(v, "held"));
	return buf;
}

/* The VERDICT column's width: as wide as its widest text. */
static int verdict_width(struct json_object *list)
{
	char buf[160];
	int w = 8;

	for (size_t i = 0; i < json_object_array_length(list); i++) {
		int n =
		    (int)strlen(verdict_text(buf, sizeof(buf), json_object_array_get_idx(list, i)));

		w = n > w ? n : w;
	}
	return w;
}

static void print_cgroup_row(struct json_object *row, int width, int vwidth)
{
	char anon[32], thp[32], cov[16], wl[320], verdict[160];

	struct json_object *v = jget(row, "verdict");

	printf("%-*s %11s %11s %7s %8llu %8.1f %8llu %8.1f %6.3f %-*s %-4s %5s  %s\n", width,
	       jget_text(row, "path"), fmt_bytes(anon, sizeof(anon), jget_u64(row, "anon_bytes")),
	       fmt_bytes(thp, sizeof(thp), jget_u64(row, "thp_bytes")),
	       fmt_pct(cov, sizeof(cov), jget(row, "coverage_pct")),
	       (unsigned long long)jget_u64(row, "thp_alloc"), jget_double(row, "alloc_rate"),
	       (unsigned long long)jget_u64(row, "pmd_split"), jget_double(row, "split_rate"),
	       jget_double(row, "split_ratio"), vwidth, verdict_text(verdict, sizeof(verdict), row),
	       v && jget(v, "wanting")
		   ? (json_object_get_boolean(jget(v, "wanting")) ? "yes" : "no")
		   : "-",
	       v && jget(v, "score") ? score_text(jget_double(v, "score")) : "-",
	       workload_column(row, wl, sizeof(wl)));
}

void taoctl_sort_keys(FILE *f)
{
	char keys[160];

	cgroup_sort_key_words(keys, sizeof(keys));
	fprintf(f, "  KEY: %s\n", keys);
}

/* 0, or -1 after naming --sort's value as no key. */
static int opt_sort(const char *key)
{
	char keys[160];

	if (cgroup_sort_key_valid(key))
		return 0;
	cgroup_sort_key_words(keys, sizeof(keys));
	fprintf(stderr, "taoctl: --sort \"%s\": expected one of %s\n", key, keys);
	return -1;
}

const struct taoctl_opt cgroups_opts[] = {
    {"sort", 's', "KEY"}, {"glob", 'g', "GLOB"}, {"sizes", 'z', NULL}, {"all", 'a', NULL}, {0}};

/*
 * The rows the table shows without --all (busiest_pick): judged abusers
 * and misusers, tenants wanting their guarantee, then the busiest by THP
 * allocations and splits; NULL without memory (then every row).
 */
static bool *rows_that_matter(struct json_object *list, size_t n)
{
	bool *flagged = calloc(n + 1, sizeof(*flagged)), *show = calloc(n + 1, sizeof(*show));
	uint64_t *busy = calloc(n + 1, sizeof(*busy));

	for (size_t i = 0; flagged && show && busy && i < n; i++) {
		struct json_object *row = json_object_array_get_idx(list, i),
				   *v = jget(row, "verdict");
		const char *cls = v ? jget_text(v, "class") : "";

		flagged[i] = !strcmp(cls, "abuser") || !strcmp(cls, "misuser") ||
			     (v && json_object_get_boolean(jget(v, "wanting")));
		busy[i] = jget_u64(row, "thp_alloc") + jget_u64(row, "pmd_split");
	}
	if (!flagged || !show || !busy || busiest_pick(flagged, busy, n, BUSIEST_SHOWN, show) < 0) {
		free(show);
		show = NULL;
	}
	free(flagged);
	free(busy);
	return show;
}

static void print_cgroup_table(struct json_object *list, bool all)
{
	size_t n = json_object_array_length(list), shown = 0;
	bool *show = all ? NULL : rows_that_matter(list, n);
	int w = column_width(list, "path", 6), vw = verdict_width(list);

	printf("%-*s %11s %11s %7s %8s %8s %8s %8s %6s %-*s %-4s %5s  %s\n", w, "CGROUP", "ANON",
	       "THP", "COVER", "ALLOCS", "ALLOC/s", "SPLITS", "SPLIT/s", "RATIO", vw, "VERDICT",
	       "WANT", "SCORE", "WORKLOAD");
	for (size_t i = 0; i < n; i++) {
		if (show && !show[i])
			continue;
		print_cgroup_row(json_object_array_get_idx(list, i), w, vw);
		shown++;
	}
	if (shown < n)
		printf("(%zu of %zu cgroups left out: no THP allocations or splits, or fewer than "
		       "the %d busiest (--all shows every one))\n",
		       n - shown, n, BUSIEST_SHOWN);
	free(show);
}

int taoctl_cgroups(const struct taoctl *ctl, int argc, char **argv)
{
	struct json_object *args = json_object_new_object(), *r, *list;
	bool sizes = false, all = false;
	int c, rc;

	while ((c = taoctl_getopt(argc, argv, cgroups_opts, false)) != -1) {
		if (c == 'z')
			sizes = true;
		else if (c == 'a')
			all = true;
		else if (c == 's' && !opt_sort(optarg))
			json_add_str(args, "sort", optarg);
		else if (c == 'g' && !opt_glob("--glob", optarg))
			json_add_str(args, "glob", optarg);
		else {
			json_object_put(args);
			return EXIT_USAGE;
		}
	}
	if (optind < argc && opt_glob("GLOB", argv[optind])) {
		json_object_put(args);
		return EXIT_USAGE;
	}
	if (optind < argc) /* a bare argument is the glob */
		json_add_str(args, "glob", argv[optind]);
	rc = taoctl_request(ctl, "cgroups", args, &r);
	json_object_put(args);
	if (rc)
		return rc;
	list = jget(r, "cgroups");
	if (sizes) {
		print_cgroup_sizes(list, ctl->json);
	} else if (ctl->json) {
		print_json(list);
	} else {
		print_cgroup_table(list, all);
	}
	json_object_put(r);
	return 0;
}

/* A task's size mix, "64K:32/8/4/0 16K:8/2/0/0" (each per-size event in
 * the list's order: faulted/partial/split/collapsed per folio size), or
 * "-" with none; cut short to fit @len. */
static const char *size_mix_text(char *buf, size_t len, struct json_object *sizes)
{
	size_t used = 0;

	buf[0] = 0;
	for (size_t k = 0; sizes && k < json_object_array_length(sizes) && used < len; k++) {
		struct json_object *s = json_object_array_get_idx(sizes, k);
		char one[SIZE_NEVENTS * 24 + 24];
		size_t m = (size_t)snprintf(one, sizeof(one), "%lluK",
					    (unsigned long long)jget_u64(s, "size_kb"));
		int n;

		for (int ev = 0; ev < SIZE_NEVENTS && m < sizeof(one); ev++)
			m +=
			    (size_t)snprintf(one + m, sizeof(one) - m, "%c%llu", ev ? '/' : ':',
					     (unsigned long long)jget_u64(s, size_events[ev].json));
		n = snprintf(buf + used, len - used, "%s%s", used ? " " : "", one);
		if (n < 0)
			break;
		used += (size_t)n;
	}
	return buf[0] ? buf : "-";
}

/* top-tasks' and actions': how many, of which cgroups. */
const struct taoctl_opt list_opts[] = {{"limit", 'n', "N"}, {"cgroup", 'g', "GLOB"}, {0}};

int taoctl_top_tasks(const struct taoctl *ctl, int argc, char **argv)
{
	struct json_object *args = json_object_new_object(), *r, *list;
	int c, rc, w;

	while ((c = taoctl_getopt(argc, argv, list_opts, false)) != -1) {
		long n;

		if (c == 'g' && !opt_glob("--cgroup", optarg)) {
			json_add_str(args, "glob", optarg);
			continue;
		}
		if (c != 'n' || opt_positive("--limit", optarg, &n)) {
			json_object_put(args);
			return EXIT_USAGE;
		}
		json_add_i64(args, "limit", n);
	}
	rc = taoctl_request(ctl, "top-tasks", args, &r);
	json_object_put(args);
	if (rc)
		return rc;
	list = jget(r, "tasks");
	if (ctl->json) {
		print_json(list);
		json_object_put(r);
		return 0;
	}
	w = column_width(list, "cgroup", 6);
	printf("%8s %-16s %-*s %8s %8s %8s %6s  %s\n", "PID", "COMM", w, "CGROUP", "ALLOCS",
	       "SPLITS", "WHOLE", "ALIVE", "SIZES");
	for (size_t i = 0; i < json_object_array_length(list); i++) {
		struct json_object *t = json_object_array_get_idx(list, i);
		char mix[256];

		printf("%8llu %-16s %-*s %8llu %8llu %8llu %6s  %s\n",
		       (unsigned long long)jget_u64(t, "pid"), jget_text(t, "comm"), w,
		       jget_text(t, "cgroup"), (unsigned long long)jget_u64(t, "thp_fault_alloc"),
		       (unsigned long long)jget_u64(t, "pmd_split"),
		       (unsigned long long)jget_u64(t, "pmd_unmap_whole"),
		       json_object_get_boolean(jget(t, "alive")) ? "yes" : "no",
		       size_mix_text(mix, sizeof(mix), jget(t, "sizes")));
	}
	json_object_put(r);
	return 0;
}

/* CGROUP (a path from /) or PID (digits) as explain's arguments, or NULL. */
static struct json_object *explain_target(const char *what)
{
	struct json_object *args = json_object_new_object();
	char *end;
	long pid;

	if (what[0] == '/') {
		json_add_str(args, "cgroup", what);
		return args;
	}
	pid = strtol(what, &end, 10);
	if (*what && !*end && pid > 0 && pid <= INT32_MAX) {
		json_add_i64(args, "pid", pid);
		return args;
	}
	json_object_put(args);
	return NULL;
}

int taoctl_explain(const struct taoctl *ctl, int argc, char **argv)
{
	struct json_object *args = argc == 2 ? explain_target(argv[1]) : NULL, *r;
	int rc;

	if (!args) {
		fprintf(stderr, "taoctl: explain takes one CGROUP (a path from /) or PID\n");
		return EXIT_USAGE;
	}
	rc = taoctl_request(ctl, "explain", args, &r);
	json_object_put(args);
	if (rc)
		return rc;
	if (ctl->json)
		print_json(r);
	else if (explain_print(stdout, r))
		rc = EXIT_PROTOCOL;
	json_object_put(r);
	return rc;
}
