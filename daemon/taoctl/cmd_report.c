// SPDX-License-Identifier: GPL-2.0
/*
 * taoctl report: reads the history database directly (read-only), so it
 * works with taod stopped or crashed. taoctl metrics: the live exposition.
 */
#include <errno.h>
#include <getopt.h>
#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "client.h"
#include "config_file.h"
#include "subcommands.h"
#include "format.h"
#include "common/clock.h"
#include "config/config.h"
#include "decide/policy_match.h"
#include "common/parse.h"
#include "report/report.h"
#include "report/render/report_costs_out.h"

struct report_args {
	const char *config;
	const char *db;
	const char *glob;
	const char *format;
	const char *out;
	uint64_t since_ms;
	bool sizes; /* csv: a line per cgroup and folio size */
	bool costs; /* csv: a line per policy or tenant and action kind */
	bool all;   /* table, html: idle and removed cgroups too */
};

static const struct {
	const char *name;
	int (*write)(FILE *f, const struct report *r);
} formats[] = {
    {"table", report_write_table},
    {"json", report_write_json},
    {"csv", report_write_csv},
    {"html", report_write_html},
};

const struct taoctl_opt report_opts[] = {
    {"since", 's', "D"},       {"cgroup", 'g', "GLOB"},
    {"format", 'f', "FORMAT"}, {"output", 'o', "FILE"},
    {"db", 'd', "PATH"},       {"config", 'c', "CONFIG"},
    {"sizes", 'z', NULL},      {"costs", 'C', NULL},
    {"all", 'a', NULL},	       {0},
};

static int parse_report_args(int argc, char **argv, struct report_args *a)
{
	int c;

	while ((c = taoctl_getopt(argc, argv, report_opts, false)) != -1) {
		switch (c) {
		case 's':
			if (parse_duration_ms(optarg, &a->since_ms) || !a->since_ms) {
				fprintf(stderr,
					"taoctl: --since \"%s\": expected a duration such "
					"as 30m, 1h, 24h, 7d\n",
					optarg);
				return EXIT_USAGE;
			}
			break;
		case 'g':
			if (opt_glob("--cgroup", optarg))
				return EXIT_USAGE;
			a->glob = optarg;
			break;
		case 'f':
			a->format = optarg;
			break;
		case 'o':
			a->out = optarg;
			break;
		case 'd':
			a->db = optarg;
			break;
		case 'c':
			a->config = optarg;
			break;
		case 'z':
			a->sizes = true;
			break;
		case 'C':
			a->costs = true;
			break;
		case 'a':
			a->all = true;
			break;
		default:
			return EXIT_USAGE;
		}
	}
	if (optind < argc) {
		fprintf(stderr, "taoctl: report: unexpected argument \"%s\"\n", argv[optind]);
		return EXIT_USAGE;
	}
	return 0;
}

/*
 * The configuration the report is read with: -c FILE, else the default
 * file if it exists, else the built-in settings. NULL with --db and no
 * file at all (policies, hence guarantees, unknown). Exits on errors.
 */
static int load_config(const struct report_args *a, struct taod_config **out)
{
	*out = NULL;
	if (!a->config && access(TAOD_DEFAULT_CONFIG, F_OK)) {
		if (a->db) /* nothing says which policies apply */
			return EXIT_OK;
		*out = calloc(1, sizeof(**out));
		if (!*out)
			return EXIT_FAILED;
		config_defaults(*out); /* no config at all: the default path */
		return EXIT_OK;
	}
	return taoctl_read_config(a->config ? a->config : TAOD_DEFAULT_CONFIG, taoctl_needs_history,
				  out);
}

/* The database named by --db, else by the configuration's [history] path. */
static int resolve_db(const struct report_args *a, const struct taod_config *cfg, char *buf,
		      size_t len)
{
	if (a->db)
		return snprintf(buf, len, "%s", a->db) < (int)len ? 0 : EXIT_USAGE;
	if (!cfg->history_path[0]) {
		fprintf(stderr, "taoctl: %s: [history] path is empty (history off); give --db\n",
			a->config ? a->config : TAOD_DEFAULT_CONFIG);
		return EXIT_USAGE;
	}
	snprintf(buf, len, "%s", cfg->history_path);
	return 0;
}

/* Each cgroup's guarantee, from the policy that applies to it now. */
static void set_guarantees(struct report *r, const struct taod_config *cfg)
{
	for (size_t i = 0; cfg && i < r->ncgroups; i++) {
		const struct policy *p = policy_lookup(&cfg->policies, r->cgroups[i].path, NULL);

		r->cgroups[i].guarantee_pct = p ? p->coverage_guarantee : 0;
	}
}

static int write_report(const struct report_args *a, const struct report *r,
			int (*write)(FILE *, const struct report *))
{
	FILE *f = a->out ? fopen(a->out, "we") : stdout;
	int rc;

	if (!f) {
		fprintf(stderr, "taoctl: cannot write %s: %s\n", a->out, strerror(errno));
		return EXIT_FAILED;
	}
	rc = write(f, r);
	if (a->out && fclose(f))
		rc = -1;
	if (rc) {
		fprintf(stderr, "taoctl: writing the report failed\n");
		return EXIT_FAILED;
	}
	return EXIT_OK;
}

int taoctl_report(const struct taoctl *ctl, int argc, char **argv)
{
	struct report_args a = {.config = ctl->config, /* taoctl -c CONFIG report */
				.format = ctl->json ? "json" : "table",
				.since_ms = 24ULL * 3600 * 1000};
	int (*write)(FILE *, const struct report *) = NULL;
	char db[PATH_MAX], err[PATH_MAX + 256];
	struct report_query q = {0};
	struct taod_config *cfg = NULL;
	struct report r;
	int rc = parse_report_args(argc, argv, &a);

	if (rc)
		return rc;
	for (size_t i = 0; i < sizeof(formats) / sizeof(formats[0]); i++)
		if (!strcmp(formats[i].name, a.format))
			write = formats[i].write;
	if (!write) {
		fprintf(stderr, "taoctl: --format \"%s\": expected table, json, csv or html\n",
			a.format);
		return EXIT_USAGE;
	}
	if (a.sizes && write != report_write_csv) {
		fprintf(stderr, "taoctl: report: --sizes goes with --format csv (the other formats "
				"show the sizes anyway)\n");
		return EXIT_USAGE;
	}
	if ((a.sizes || a.costs) && write != report_write_csv) {
		fprintf(stderr, "taoctl: report: --costs goes with --format csv (the other formats "
				"show the costs anyway)\n");
		return EXIT_USAGE;
	}
	if (a.sizes && a.costs) {
		fprintf(stderr, "taoctl: report: --sizes or --costs, not both\n");
		return EXIT_USAGE;
	}
	if (a.sizes)
		write = report_write_sizes_csv;
	if (a.costs)
		write = report_write_costs_csv;
	rc = load_config(&a, &cfg);
	rc = rc ? rc : resolve_db(&a, cfg, db, sizeof(db));
	if (rc) {
		free(cfg);
		return rc;
	}
	q = (struct report_query){
	    .db_path = db, .glob = a.glob, .with_series = write == report_write_html};
	q.until_ms = (int64_t)realtime_ms();
	q.since_ms = q.until_ms - (int64_t)a.since_ms;
	if (report_load(&q, &r, err, sizeof(err))) {
		fprintf(stderr, "taoctl: report: %s\n", err);
		report_free(&r);
		free(cfg);
		return EXIT_FAILED;
	}
	if (r.paths_cut)
		fprintf(stderr,
			"taoctl: report: %zu cgroup paths longer than %d bytes are shown "
			"cut in the middle\n",
			r.paths_cut, REPORT_MAX_PATH);
	r.generated_ms = q.until_ms;
	r.all = a.all;
	set_guarantees(&r, cfg);
	rc = write_report(&a, &r, write);
	report_free(&r);
	free(cfg);
	return rc;
}

int taoctl_metrics(const struct taoctl *ctl, int argc, char **argv)
{
	struct json_object *r;
	int rc;

	(void)argc;
	(void)argv;
	rc = taoctl_request(ctl, "metrics", NULL, &r);
	if (rc)
		return rc;
	if (ctl->json)
		print_json(r);
	else
		fputs(jget_str(r, "text"), stdout);
	json_object_put(r);
	return 0;
}
