// SPDX-License-Identifier: GPL-2.0
/*
 * taod: observes THP allocation and splitting per cgroup, judges each
 * cgroup against its policy and acts on the kernel's controls through a
 * safety gate. Runs in the foreground as a systemd Type=notify service.
 */
#include <errno.h>
#include <getopt.h>
#include <grp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <systemd/sd-daemon.h>
#include <systemd/sd-event.h>
#include <sys/resource.h>
#include <sys/stat.h>

#include "act/act.h"
#include "control/commands.h"
#include "control/control_server.h"
#include "pipeline.h"
#include "common/instance_lock.h"
#include "common/clock.h"
#include "common/log.h"
#include "common/offload.h"
#include "common/rootfs.h"
#include "common/version.h"
#include "report/history/history_peak.h"
#include "report/report_stage.h"
#include "common/sat_math.h"

/* taod's options: getopt reads this table and usage prints it (taod(8) is held to it). */
static const struct {
	struct option opt;
	const char *arg, *help;
} options[] = {
    {{"config", required_argument, NULL, 'c'},
     "PATH",
     "configuration file (default " TAOD_DEFAULT_CONFIG ")"},
    {{"dropin-dir", required_argument, NULL, 'd'}, "DIR", "drop-in directory (default CONFIG.d)"},
    {{"check-config", no_argument, NULL, 't'}, NULL, "check the configuration and exit"},
    {{"version", no_argument, NULL, 'V'}, NULL, "print the version"},
    {{"help", no_argument, NULL, 'h'}, NULL, "print this help"},
};
#define NOPTIONS (sizeof(options) / sizeof(options[0]))

static void usage(FILE *f)
{
	fprintf(f, "Usage: taod [OPTIONS]\n");
	for (size_t i = 0; i < NOPTIONS; i++) {
		char left[48];

		snprintf(left, sizeof(left), "-%c, --%s%s%s", options[i].opt.val,
			 options[i].opt.name, options[i].arg ? " " : "",
			 options[i].arg ? options[i].arg : "");
		fprintf(f, "  %-26s %s\n", left, options[i].help);
	}
}

/*
 * -d DIR names a directory the operator means: its absence is an error
 * (a typo would drop every drop-in unseen). The default, CONFIG.d, may be absent.
 */
static bool dropin_dir_missing(const char *dir)
{
	struct stat st;

	if (stat(dir, &st))
		fprintf(stderr, "taod: --dropin-dir %s: %s\n", dir, strerror(errno));
	else if (!S_ISDIR(st.st_mode))
		fprintf(stderr, "taod: --dropin-dir %s: not a directory\n", dir);
	else
		return false;
	return true;
}

static int parse_args(int argc, char **argv, struct taod *d, bool *check_only)
{
	struct option opts[NOPTIONS + 1] = {{0}};
	char shorts[2 * NOPTIONS + 1] = "";
	int c;

	for (size_t i = 0; i < NOPTIONS; i++) {
		opts[i] = options[i].opt;
		strcat(shorts, (char[]){(char)options[i].opt.val, '\0'});
		if (options[i].arg)
			strcat(shorts, ":");
	}
	snprintf(d->config_path, sizeof(d->config_path), "%s", TAOD_DEFAULT_CONFIG);
	while ((c = getopt_long(argc, argv, shorts, opts, NULL)) != -1) {
		switch (c) {
		case 'c':
			snprintf(d->config_path, sizeof(d->config_path), "%s", optarg);
			break;
		case 'd':
			snprintf(d->dropin_dir, sizeof(d->dropin_dir), "%s", optarg);
			break;
		case 't':
			*check_only = true;
			break;
		case 'V':
			printf("taod %s\n", taod_version());
			exit(0);
		case 'h':
			usage(stdout);
			exit(0);
		default:
			usage(stderr);
			return -EINVAL;
		}
	}
	if (optind < argc) {
		fprintf(stderr, "taod: unexpected argument \"%s\"\n", argv[optind]);
		return -EINVAL;
	}
	if (d->dropin_dir[0] && dropin_dir_missing(d->dropin_dir))
		return -ENOENT;
	if (!d->dropin_dir[0] && strlen(d->config_path) + 3 > sizeof(d->dropin_dir)) {
		fprintf(stderr, "taod: config path too long\n");
		return -ENAMETOOLONG;
	}
	if (!d->dropin_dir[0])
		strcat(strcpy(d->dropin_dir, d->config_path), ".d");
	return 0;
}

/* Parses the configuration; on errors prints them all and returns NULL. */
static struct taod_config *load_config(const struct taod *d)
{
	struct taod_config *cfg = calloc(1, sizeof(*cfg));
	struct config_errors *errs = calloc(1, sizeof(*errs));

	if (!cfg || !errs) {
		free(cfg);
		free(errs);
		return NULL;
	}
	if (config_load(cfg, d->config_path, d->dropin_dir, errs)) {
		config_errors_print(errs);
		free(cfg);
		cfg = NULL;
	}
	free(errs);
	return cfg;
}

/* SIGHUP and `taoctl reload` both come here; errors leave all as it was. */
static int reload_config(struct taod *d, struct config_errors *errs, struct config_restart *restart)
{
	int n = config_reload(&d->cfg, d->config_path, d->dropin_dir, errs, restart);

	if (n) {
		log_err("reload rejected: %s has %d errors; the running configuration stays",
			d->config_path, n);
		return n;
	}
	actor_set_settings(d->actor, &d->cfg->enforce, &d->cfg->k);
	if (d->ctl)
		control_server_set_reply_memory(d->ctl, d->cfg->reply_memory);
	return 0;
}

static void apply_reload(struct taod *d)
{
	struct config_errors *errs = calloc(1, sizeof(*errs));

	if (errs && reload_config(d, errs, NULL)) /* the log names restart-only changes */
		config_errors_print(errs);
	free(errs);
}

static int on_tick(sd_event_source *s, uint64_t usec, void *user)
{
	struct taod *d = user;
	int r = pipeline_tick(d); /* logged where it failed */

	offload_reap(); /* killed children that were slow to go */

	sd_notifyf(0, "STATUS=%zu cgroups, %s mode, %s kernel%s%s", d->cgroups.n,
		   thp_observe_mode(d->obs), kernel_kind_name(d->kernel.kind),
		   r < 0 ? "; last tick incomplete: " : "", r < 0 ? strerror(-r) : "");
	return sd_event_source_set_time(s, sat_add_u64(usec, sat_mul_u64(d->cfg->tick_ms, 1000)));
}

static int on_signal(sd_event_source *s, const struct signalfd_siginfo *si, void *user)
{
	struct taod *d = user;

	if (si->ssi_signo == SIGHUP) {
		sd_notify(0, "RELOADING=1");
		apply_reload(d);
		sd_notify(0, "READY=1");
		return 0;
	}
	log_info("signal %u received, exiting", si->ssi_signo);
	sd_notify(0, "STOPPING=1");
	return sd_event_exit(sd_event_source_get_event(s), 0);
}

static int setup_event_loop(struct taod *d)
{
	sigset_t mask;
	uint64_t now;
	int r;

	sigemptyset(&mask);
	sigaddset(&mask, SIGTERM);
	sigaddset(&mask, SIGINT);
	sigaddset(&mask, SIGHUP);
	sigprocmask(SIG_BLOCK, &mask, NULL);
	signal(SIGPIPE, SIG_IGN);
	r = sd_event_default(&d->event);
	if (r < 0)
		return r;
	/* Without its signals taod could not stop cleanly or reload: fatal. */
	if (log_errno(LOG_ERR, sd_event_add_signal(d->event, NULL, SIGTERM, on_signal, d),
		      "watching SIGTERM") < 0 ||
	    log_errno(LOG_ERR, sd_event_add_signal(d->event, NULL, SIGINT, on_signal, d),
		      "watching SIGINT") < 0 ||
	    log_errno(LOG_ERR, sd_event_add_signal(d->event, NULL, SIGHUP, on_signal, d),
		      "watching SIGHUP") < 0)
		return -EIO;
	log_errno(LOG_WARNING, sd_event_set_watchdog(d->event, 1), "systemd watchdog");
	r = log_errno(LOG_ERR, sd_event_now(d->event, CLOCK_MONOTONIC, &now), "event loop clock");
	if (r < 0)
		return r;
	r = sd_event_add_time(d->event, &d->tick_source, CLOCK_MONOTONIC, now, 0, on_tick, d);
	if (r < 0)
		return r;
	return sd_event_source_set_enabled(d->tick_source, SD_EVENT_ON);
}

/* act_ctx.cgroup_path: the path the last walk found for @id. */
static const char *cgroup_path_of(void *ctx, uint64_t id)
{
	const struct cgroup_entry *e = cgroup_table_find(&((struct taod *)ctx)->cgroups, id);

	return e ? e->path : NULL;
}

static int start_actor(struct taod *d)
{
	const struct act_backend_ops *be =
	    act_backend_pick(d->cfg->enforce.backend, d->kernel.kind);
	int r = actor_open(&d->actor, &d->cfg->enforce, &d->cfg->k, &d->tree, be);

	if (r) {
		log_err("act stage: %s", strerror(-r));
		return r;
	}
	actor_set_kernel(d->actor, &d->kernel);
	actor_set_cgroup_paths(d->actor, cgroup_path_of, d);
	log_info("act: %s backend, %s mode", be->name, act_mode_name(d->cfg->enforce.mode));
	return 0;
}

/*
 * The cgroup walk holds a directory fd per level, and cgroup owners choose
 * the depth: under systemd's soft limit of 1024 a tree nested deeper than
 * that hid its lower cgroups from taod. The hard limit is the real bound
 * (taod polls with epoll, never select).
 */
static void raise_fd_limit(void)
{
	struct rlimit rl;

	if (getrlimit(RLIMIT_NOFILE, &rl) || rl.rlim_cur >= rl.rlim_max)
		return;
	rl.rlim_cur = rl.rlim_max;
	if (setrlimit(RLIMIT_NOFILE, &rl))
		log_errno(LOG_WARNING, -errno, "raising the open-file limit");
}

/*
 * The THP bytes tenants held at their peak in the history window, so that
 * a restart (a reboot into new zones above all) does not forget it: taoctl
 * zones never sizes the zones below it. A batch older than this boot is
 * placed at the boot (kept at most one window past it).
 */
static void seed_held_peak(struct taod *d)
{
	struct history *h = d->report.history.h;
	uint64_t bytes, at, now = realtime_ms(), mono = monotonic_ms();
	uint64_t win = d->cfg->history_retention_ms, age;

	if (!h || history_thp_peak(h, now > win ? now - win : 0, &bytes, &at) || !bytes)
		return;
	age = now > at ? now - at : 0;
	thp_peak_add(&d->decide.zones.held_peak, win, mono > age ? mono - age : 0, bytes);
	log_info("history: tenants held %llu MiB of THPs at their peak in the last %llu h",
		 (unsigned long long)(bytes >> 20), (unsigned long long)(win / 3600000));
}

/* The [control] group's id; (gid_t)-1 without such a group: root alone sees all. */
static gid_t readers_group(const char *name)
{
	struct group *g = getgrnam(name);

	if (g)
		return g->gr_gid;
	log_notice("[control] group %s: no such group; only root sees every tenant's rows", name);
	return (gid_t)-1;
}

static int start(struct taod *d)
{
	char why[PATH_MAX + 64] = "";
	int r;

	/* Before anything is bound, opened or written, socket activated or not. */
	r = instance_lock(d->cfg->socket_path, why, sizeof(why));
	if (r) {
		log_err("%s; exiting", why);
		return r;
	}
	raise_fd_limit();
	rootfs_set(d->cfg->root);
	r = cgroup_tree_detect(&d->tree, d->cfg, why, sizeof(why));
	if (r) {
		log_err("memory cgroup hierarchy not found: %s", why);
		return r;
	}
	log_info("memory cgroups: v%d at %s", d->tree.version, d->tree.mount);
	kernel_probe(d->cfg, &d->tree, &d->kernel);
	log_info("kernel %s: %s (%s)", d->kernel.release, kernel_kind_name(d->kernel.kind),
		 d->kernel.why);
	r = thp_observe_open(&d->obs, d->cfg);
	if (r)
		return r;
	cgroup_table_init(&d->cgroups, d->cfg->sample_keep);
	d->cgroups.partial_gauge = thp_observe_partial_gauge(d->obs);
	r = start_actor(d);
	if (r)
		return r;
	decide_init(&d->decide);
	pressure_state_init(&d->pressure);
	d->action_sink = actor_sink;
	d->action_sink_ctx = d->actor;
	d->reload = reload_config;
	report_stage_open(&d->report, d->cfg, d->start_wall_ms);
	seed_held_peak(d);
	actor_set_record_hook(d->actor, report_stage_record_action, &d->report);
	actor_set_benefit_hook(d->actor, report_stage_record_benefit, &d->report);
	pipeline_benefit_source(d);
	r = setup_event_loop(d);
	if (r < 0) {
		log_err("event loop: %s", strerror(-r));
		return r;
	}
	actor_set_event(d->actor, d->event); /* shatters and collapses off the loop */
	r = control_server_start(&d->ctl, d->event, d->cfg->socket_path, d->cfg->socket_mode,
				 readers_group(d->cfg->group), commands_dispatch, d);
	if (r) {
		log_err("control socket %s: %s", d->cfg->socket_path, strerror(-r));
		return r;
	}
	control_server_set_reply_memory(d->ctl, d->cfg->reply_memory);
	log_info("listening on %s%s", d->cfg->socket_path,
		 control_server_activated(d->ctl) ? " (socket activated)" : "");
	return 0;
}

static void stop(struct taod *d)
{
	struct report_tick last;

	/* Work off the loop ends first: its records and replies still go out. */
	offload_stop_all();
	if (d->actor)
		actor_drop_pending(d->actor);
	control_server_stop(d->ctl);
	sd_event_source_disable_unref(d->tick_source);
	sd_event_unref(d->event);
	/* Nothing taod lowered outlives it; audited while history is open. */
	if (d->actor)
		actor_release(d->actor);
	pipeline_report_tick(d, &last);
	report_stage_close(&d->report, &last);
	thp_observe_close(d->obs);
	actor_close(d->actor);
	cgroup_table_free(&d->cgroups);
	cgroup_watch_close(&d->watch);
	cgroup_events_free(&d->tree_events);
	cgroup_events_free(&d->tree_backlog);
	decide_free(&d->decide);
	free(d->cfg);
}

int main(int argc, char **argv)
{
	struct taod d = {0};
	bool check_only = false;
	int r;

	log_init("taod");
	if (parse_args(argc, argv, &d, &check_only))
		return 2;
	d.cfg = load_config(&d);
	if (!d.cfg)
		return 1;
	if (check_only) {
		printf("%s: configuration OK\n", d.config_path);
		free(d.cfg);
		return 0;
	}
	log_set_max_level(d.cfg->log_level);
	d.start_ms = monotonic_ms();
	d.start_wall_ms = realtime_ms();
	r = start(&d);
	if (!r) {
		sd_notify(0, "READY=1");
		r = sd_event_loop(d.event);
	}
	stop(&d);
	return r < 0 ? 1 : 0;
}
