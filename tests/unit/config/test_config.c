// SPDX-License-Identifier: GPL-2.0
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <syslog.h>
#include <unistd.h>

#include "config/config.h"
#include "../support/tmp_conf.h"

static const char *dir;

static void setup(void)
{
	dir = tmp_conf_setup();
}

static void teardown(void)
{
	tmp_conf_teardown();
}

#define write_conf tmp_conf_write

TestSuite(config, .init = setup, .fini = teardown);

Test(config, shipped_file_parses_cleanly)
{
	struct taod_config cfg;
	struct config_errors errs;

	cr_assert_eq(config_load(&cfg, "../config/taod.conf", NULL, &errs), 0,
		     "first error: %s:%d: %s", errs.items[0].file, errs.items[0].line,
		     errs.items[0].msg);
	cr_assert_eq(cfg.tick_ms, 1000);
	cr_assert_eq(cfg.unmap_pair_window_ms, 1);
	cr_assert_str_eq(cfg.socket_path, "/run/taod/taod.sock");
}

Test(config, values_are_applied)
{
	struct taod_config cfg;
	struct config_errors errs;
	const char *p =
	    write_conf("a.conf", "[daemon]\ntick = 250ms\nlog_level = debug\n"
				 "[control]\nsocket_mode = 0600\nreaders = root\n"
				 "[kernel]\ntao = yes\nzoneinfo = /fixture/zoneinfo\n"
				 "memstat_v1_thp = rss_huge\nunmap_pair_window = 50ms\n");

	cr_assert_eq(config_load(&cfg, p, NULL, &errs), 0);
	cr_assert_eq(cfg.tick_ms, 250);
	cr_assert_eq(cfg.log_level, LOG_DEBUG);
	cr_assert_eq(cfg.socket_mode, 0600);
	cr_assert_eq(cfg.readers, READERS_ROOT);
	cr_assert_eq(cfg.tao, TAO_YES);
	cr_assert_eq(cfg.unmap_pair_window_ms, 50);
	cr_assert_str_eq(cfg.k.zoneinfo, "/fixture/zoneinfo");
	cr_assert_str_eq(cfg.k.memstat_v1_thp, "rss_huge");
	cr_assert_str_eq(cfg.k.vmstat, "/proc/vmstat"); /* default kept */
}

Test(config, every_error_has_file_line_and_key)
{
	struct taod_config cfg;
	struct config_errors errs;
	const char *p = write_conf("bad.conf", "# comment\n"
					       "[daemon]\n"
					       "tick = soon\n"
					       "colour = blue\n"
					       "[nonsense]\n"
					       "x = 1\n"
					       "[kernel]\n"
					       "tao = perhaps\n"
					       "this line has no equals sign\n");

	cr_assert_eq(config_load(&cfg, p, NULL, &errs), 5);
	cr_assert_eq(errs.items[0].line, 3);
	cr_assert(strstr(errs.items[0].msg, "[daemon] tick = \"soon\""), "%s", errs.items[0].msg);
	cr_assert_eq(errs.items[1].line, 4);
	cr_assert(strstr(errs.items[1].msg, "unknown key \"colour\""));
	cr_assert_eq(errs.items[2].line, 5, "the section's own line, not its key's");
	cr_assert(strstr(errs.items[2].msg, "unknown section [nonsense]"));
	cr_assert_eq(errs.items[3].line, 8);
	cr_assert(strstr(errs.items[3].msg, "auto, yes, no"), "%s", errs.items[3].msg);
	cr_assert_eq(errs.items[4].line, 9);
	cr_assert(strstr(errs.items[4].msg, "syntax error"));
	cr_assert_str_eq(errs.items[0].file, p);
}

/* A typo is named once, where it is, with the word it likely was. */
Test(config, typos_get_a_did_you_mean)
{
	struct taod_config cfg;
	struct config_errors errs;
	const char *p = write_conf("typo.conf", "[deamon]\n"
						"tick = 1s\n"
						"root = /\n"
						"[deamon-empty]\n"
						"[daemon]\n"
						"tikc = 1s\n"
						"socket = /x.sock\n"
						"[polcy web]\n"
						"match = /web/*\n"
						"[policy w]\n"
						"match = /w\n"
						"windw = 1s\n");

	cr_assert_eq(config_load(&cfg, p, NULL, &errs), 6);
	cr_assert_eq(errs.items[0].line, 1);
	cr_assert_str_eq(errs.items[0].msg, "unknown section [deamon] (did you mean [daemon]?)");
	cr_assert_eq(errs.items[1].line, 4, "a section with no keys is named too");
	cr_assert_str_eq(errs.items[1].msg, "unknown section [deamon-empty]");
	cr_assert_str_eq(errs.items[2].msg, "[daemon] unknown key \"tikc\" (did you mean tick?)");
	cr_assert_str_eq(errs.items[3].msg,
			 "[daemon] unknown key \"socket\" (it is a [control] key)");
	cr_assert_eq(errs.items[4].line, 8);
	cr_assert_str_eq(errs.items[4].msg,
			 "unknown section [polcy web] (did you mean [policy web]?)");
	cr_assert_str_eq(errs.items[5].msg,
			 "[policy w] unknown key \"windw\" (did you mean window?)");
}

Test(config, zero_tick_and_relative_paths_rejected)
{
	struct taod_config cfg;
	struct config_errors errs;
	const char *p =
	    write_conf("z.conf", "[daemon]\ntick = 0s\n[kernel]\nvmstat = proc/vmstat\n");

	cr_assert_eq(config_load(&cfg, p, NULL, &errs), 2);
	cr_assert_eq(errs.items[0].line, 2);
	cr_assert_eq(errs.items[1].line, 4);
	cr_assert(strstr(errs.items[1].msg, "absolute path"));
}

Test(config, dropins_override_in_name_order)
{
	struct taod_config cfg;
	struct config_errors errs;
	char dropins[256];
	const char *p;

	snprintf(dropins, sizeof(dropins), "%s/taod.conf.d", dir);
	mkdir(dropins, 0755);
	write_conf("taod.conf.d/20-late.conf", "[daemon]\ntick = 3s\n");
	write_conf("taod.conf.d/10-early.conf", "[daemon]\ntick = 2s\nlog_level = err\n");
	write_conf("taod.conf.d/ignored.txt", "[daemon]\ntick = 9s\n");
	p = write_conf("taod.conf", "[daemon]\ntick = 1s\n");
	cr_assert_eq(config_load(&cfg, p, dropins, &errs), 0);
	cr_assert_eq(cfg.tick_ms, 3000);
	cr_assert_eq(cfg.log_level, LOG_ERR);
}

Test(config, dropin_errors_name_the_dropin)
{
	struct taod_config cfg;
	struct config_errors errs;
	char dropins[256];
	const char *p;

	snprintf(dropins, sizeof(dropins), "%s/d", dir);
	mkdir(dropins, 0755);
	write_conf("d/50-x.conf", "\n\n[control]\nreaders = everyone\n");
	p = write_conf("main.conf", "[daemon]\n");
	cr_assert_eq(config_load(&cfg, p, dropins, &errs), 1);
	cr_assert(strstr(errs.items[0].file, "d/50-x.conf"));
	cr_assert_eq(errs.items[0].line, 4);
}

Test(config, missing_file_is_an_error)
{
	struct taod_config cfg;
	struct config_errors errs;

	cr_assert_eq(config_load(&cfg, "/nonexistent/taod.conf", NULL, &errs), 1);
	cr_assert(strstr(errs.items[0].msg, "cannot open"));
}

/* inih splits lines over its buffer in two; taod reads them whole. */
Test(config, long_lines_are_read_whole)
{
	struct taod_config cfg;
	struct config_errors errs;
	char text[4096], globs[1000] = "";
	const char *p;

	while (strlen(globs) < 900)
		strcat(globs, "/tenant-abc/*.service ");
	globs[strlen(globs) - 1] = '\0';
	snprintf(text, sizeof(text),
		 "[enforce]\n   allowlist   =  %s   # inline comment\nmode = enforce\n", globs);
	p = write_conf("long.conf", text);
	cr_assert_eq(config_load(&cfg, p, NULL, &errs), 0, "%s:%d: %s", errs.items[0].file,
		     errs.items[0].line, errs.items[0].msg);
	cr_assert_str_eq(cfg.enforce.allowlist, globs);
	cr_assert_eq(cfg.enforce.mode, ACT_MODE_ENFORCE);
}

/* "=GLOB" names one cgroup alone; a bare or doubled '=' is a mistake, said with its line. */
Test(config, allowlist_exact_entries_are_checked)
{
	const char *bad[] = {"= /app", "/a =", "==/app", "/a,=,/b"};
	struct taod_config cfg;
	struct config_errors errs;
	char text[256];
	const char *p;

	p = write_conf("eq-ok.conf", "[enforce]\nallowlist = =/app.slice/db.service /web/*\n");
	cr_assert_eq(config_load(&cfg, p, NULL, &errs), 0, "%s", errs.items[0].msg);
	cr_assert_str_eq(cfg.enforce.allowlist, "=/app.slice/db.service /web/*");
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		snprintf(text, sizeof(text), "[enforce]\nmode = enforce\nallowlist = %s\n", bad[i]);
		p = write_conf("eq-bad.conf", text);
		cr_assert_eq(config_load(&cfg, p, NULL, &errs), 1, "%s", bad[i]);
		cr_assert_eq(errs.items[0].line, 3);
		cr_assert(strstr(errs.items[0].file, "eq-bad.conf"), "%s", errs.items[0].file);
		cr_assert(strstr(errs.items[0].msg, "allowlist"), "%s", errs.items[0].msg);
		cr_assert(strstr(errs.items[0].msg, "\"=GLOB\""), "%s", errs.items[0].msg);
	}
}

Test(config, overlong_values_and_lines_are_errors_with_their_line)
{
	struct taod_config cfg;
	struct config_errors errs;
	char text[8192], globs[3000] = "", junk[400];
	const char *p;

	while (strlen(globs) < 2000)
		strcat(globs, "/tenant-abc/*.service ");
	memset(junk, 'x', sizeof(junk) - 1);
	junk[sizeof(junk) - 1] = '\0';
	snprintf(text, sizeof(text), "[enforce]\nallowlist = %s\n%s\nmode = enforce\n", globs,
		 junk);
	p = write_conf("over.conf", text);
	cr_assert_eq(config_load(&cfg, p, NULL, &errs), 2);
	cr_assert_eq(errs.items[0].line, 2);
	cr_assert(strstr(errs.items[0].msg, "allowlist"), "%s", errs.items[0].msg);
	cr_assert_eq(errs.items[1].line, 3);
	cr_assert(strstr(errs.items[1].msg, "not a key = value line"), "%s", errs.items[1].msg);
}

/* Found by fuzz_config: the comment scan started past the empty value's NUL. */
Test(config, a_long_line_ending_in_equals_is_one_error_not_an_overread)
{
	struct taod_config cfg;
	struct config_errors errs;
	char text[1200] = "[enforce]\nmode = enforce\n";
	const char *p;

	/* The last line, without a newline: nothing after '=' but its NUL. */
	memset(text + strlen(text), 'k', 1000);
	strcat(text, "=");
	p = write_conf("eq.conf", text);
	cr_assert_eq(config_load(&cfg, p, NULL, &errs), 1);
	cr_assert_eq(errs.items[0].line, 3);
	cr_assert(strstr(errs.items[0].msg, "unknown key"), "%s", errs.items[0].msg);
	cr_assert_eq(cfg.enforce.mode, ACT_MODE_ENFORCE);
}

Test(config, empty_allowlist_and_audit_log_mean_none)
{
	struct taod_config cfg;
	struct config_errors errs;
	const char *p = write_conf("empty.conf", "[enforce]\nallowlist =\naudit_log =\n");

	cr_assert_eq(config_load(&cfg, p, NULL, &errs), 0, "%s:%d: %s", errs.items[0].file,
		     errs.items[0].line, errs.items[0].msg);
	cr_assert_str_eq(cfg.enforce.allowlist, "");
	cr_assert_str_eq(cfg.enforce.audit_log, "");
	p = write_conf("rel.conf", "[enforce]\naudit_log = relative.jsonl\n");
	cr_assert_eq(config_load(&cfg, p, NULL, &errs), 1);
	cr_assert(strstr(errs.items[0].msg, "absolute path"), "%s", errs.items[0].msg);
}

Test(config, every_attach_setting_parses_and_names_itself)
{
	static const char *const names[] = {"auto", "fentry", "tracepoint", "memcg"};
	struct taod_config cfg;
	struct config_errors errs;
	char text[64];

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		snprintf(text, sizeof(text), "[kernel]\nattach = %s\n", names[i]);
		cr_assert_eq(config_load(&cfg, write_conf("attach.conf", text), NULL, &errs), 0,
			     "%s", names[i]);
		cr_assert_str_eq(attach_mode_name(cfg.attach), names[i]);
	}
	cr_assert_neq(config_load(&cfg, write_conf("attach.conf", "[kernel]\nattach = kprobe\n"),
				  NULL, &errs),
		      0);
	cr_assert_eq(errs.items[0].line, 2);
}

Test(config, keep_setting_copies_and_says_whether_it_differed)
{
	static struct taod_config run, next;

	config_defaults(&run);
	config_defaults(&next);
	/* A longer value overridden by a shorter one leaves bytes past the NUL. */
	snprintf(next.socket_path, sizeof(next.socket_path), "/run/taod/taod.sock.longer");
	snprintf(next.socket_path, sizeof(next.socket_path), "/run/taod/taod.sock");
	cr_assert_not(config_keep_setting(&next, &run, "control", "socket"));
	next.enforce.backend = BACKEND_DRY_RUN;
	cr_assert(config_keep_setting(&next, &run, "enforce", "backend"));
	cr_assert_eq(next.enforce.backend, run.enforce.backend, "the running value is kept");
	snprintf(next.root, sizeof(next.root), "/elsewhere");
	cr_assert(config_keep_setting(&next, &run, "daemon", "root"));
	cr_assert_str_eq(next.root, "/");
	cr_assert_not(config_keep_setting(&next, &run, "daemon", "no_such_key"));
}

/* Issue 27: 2^64 ms used to pass and wrap (a tick of 384 µs, a cooldown of
 * "now"); every number now has a range, said with file and line. */
Test(config, numbers_out_of_their_range_are_errors_naming_the_range)
{
	struct taod_config cfg;
	struct config_errors errs;
	const char *p =
	    write_conf("r.conf", "[daemon]\ntick = 18446744073709552ms\n"
				 "[kernel]\nunmap_pair_window = 2m\n"
				 "[enforce]\nstock_restrict_for = 18446744073709551615ms\n"
				 "shatter_bytes_per_minute = 2P\n"
				 "[history]\nretention = 11y\n"
				 "[policy p]\nmatch = /x\ncooldown = 367d\nwindow = 9ms\n"
				 "horizon = 18446744073709551615ms\n");

	cr_assert_eq(config_load(&cfg, p, NULL, &errs), 8, "%s", errs.items[0].msg);
	cr_assert_eq(errs.items[0].line, 2);
	cr_assert(strstr(errs.items[0].msg,
			 "expected a duration (500ms, 1s, 5m, 2h, 7d) from 10ms to 10m"),
		  "%s", errs.items[0].msg);
	cr_assert(strstr(errs.items[1].msg, "from 1ms to 1m"), "%s", errs.items[1].msg);
	cr_assert(strstr(errs.items[2].msg, "stock_restrict_for") &&
		      strstr(errs.items[2].msg, "to 366d"),
		  "%s", errs.items[2].msg);
	cr_assert(strstr(errs.items[3].msg, "a size (4096, 64K, 64M, 2G) from 0 to 1P"), "%s",
		  errs.items[3].msg);
	cr_assert(strstr(errs.items[4].msg, "retention"), "%s", errs.items[4].msg);
	cr_assert(strstr(errs.items[5].msg, "cooldown") && strstr(errs.items[5].msg, "to 366d"),
		  "%s", errs.items[5].msg);
	cr_assert(strstr(errs.items[6].msg, "window") && strstr(errs.items[6].msg, "from 10ms"),
		  "%s", errs.items[6].msg);
	cr_assert_eq(errs.items[7].line, 14);
}

Test(config, each_range_holds_its_ends)
{
	struct taod_config cfg;
	struct config_errors errs;
	const char *p =
	    write_conf("e.conf", "[daemon]\ntick = 10ms\n[kernel]\nunmap_pair_window = 1m\n"
				 "[enforce]\nstock_restrict_for = 366d\n"
				 "shatter_bytes_per_minute = 1P\n[history]\nretention = 3660d\n"
				 "[policy p]\nmatch = /x\ncooldown = 0s\nwindow = 7d\n");

	cr_assert_eq(config_load(&cfg, p, NULL, &errs), 0, "%s", errs.items[0].msg);
	cr_assert_eq(cfg.tick_ms, 10);
	cr_assert_eq(cfg.enforce.stock_restrict_for_ms, 366ULL * 86400 * 1000);
	cr_assert_eq(cfg.enforce.shatter_bytes_per_minute, 1ULL << 50);
}
