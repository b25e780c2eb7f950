// SPDX-License-Identifier: GPL-2.0
/* Odd bytes and repeats in configuration files: refused, each by file and line. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "config/config.h"
#include "../support/tmp_conf.h"

static const char *dir;
static struct taod_config cfg;
static struct config_errors errs;

static void setup(void)
{
	dir = tmp_conf_setup();
}

static void teardown(void)
{
	tmp_conf_teardown();
}

TestSuite(config_input, .init = setup, .fini = teardown);

static void assert_error(int i, const char *file, int line, const char *needle)
{
	cr_assert(i < errs.count, "only %d errors", errs.count);
	cr_assert(strstr(errs.items[i].file, file), "error %d in %s", i, errs.items[i].file);
	cr_assert_eq(errs.items[i].line, line, "error %d at line %d: %s", i, errs.items[i].line,
		     errs.items[i].msg);
	cr_assert(strstr(errs.items[i].msg, needle), "error %d: %s", i, errs.items[i].msg);
}

Test(config_input, a_nul_byte_is_an_error_with_its_line)
{
	/* Line 2 hides "mode = enforce" after a NUL; line 4 starts with one. */
	static const char text[] = "[enforce]\n"
				   "backend = dry-run\0mode = enforce\n"
				   "[daemon]\n"
				   "\0tick = 5s\n";
	const char *p = tmp_conf_write_bytes("nul.conf", text, sizeof(text) - 1);

	cr_assert_eq(config_load(&cfg, p, NULL, &errs), 2);
	assert_error(0, "nul.conf", 2, "a NUL byte at column 18");
	assert_error(1, "nul.conf", 4, "a NUL byte at column 1");
}

Test(config_input, a_key_set_twice_in_one_file_names_both_lines)
{
	const char *p = tmp_conf_write("twice.conf", "[daemon]\n"	/* 1 */
						     "tick = 1s\n"	/* 2 */
						     "[enforce]\n"	/* 3 */
						     "mode = observe\n" /* 4 */
						     "[daemon]\n"	/* 5 */
						     "tick = 2s\n"	/* 6 */
						     "[policy  web]\n"	/* 7 */
						     "match = /a/*\n"	/* 8 */
						     "[policy web]\n"	/* 9 */
						     "match = /b/*\n"); /* 10 */

	cr_assert_eq(config_load(&cfg, p, NULL, &errs), 4);
	assert_error(0, "twice.conf", 5, "[daemon] appears again (first at line 1)");
	assert_error(1, "twice.conf", 6, "[daemon] tick is set again (first at line 2)");
	assert_error(2, "twice.conf", 9, "[policy web] appears again (first at line 7)");
	assert_error(3, "twice.conf", 10, "[policy web] match is set again (first at line 8)");
}

Test(config_input, a_dropin_may_set_again_what_the_main_file_set)
{
	char dropins[512];
	const char *p;

	snprintf(dropins, sizeof(dropins), "%s/main.conf.d", dir);
	mkdir(dropins, 0755);
	tmp_conf_write("main.conf.d/10-a.conf", "[daemon]\ntick = 2s\n[policy web]\nwindow = 9s\n");
	tmp_conf_write("main.conf.d/20-b.conf", "[daemon]\ntick = 3s\n");
	p = tmp_conf_write("main.conf", "[daemon]\ntick = 1s\n[policy web]\nmatch = /w/*\n");
	cr_assert_eq(config_load(&cfg, p, dropins, &errs), 0, "%s:%d: %s", errs.items[0].file,
		     errs.items[0].line, errs.items[0].msg);
	cr_assert_eq(cfg.tick_ms, 3000);
	cr_assert_eq(cfg.policies.v[1].window_ms, 9000);
}

Test(config_input, a_conf_directory_among_the_dropins_is_an_error)
{
	char dropins[512], sub[600];
	const char *p;

	snprintf(dropins, sizeof(dropins), "%s/main.conf.d", dir);
	snprintf(sub, sizeof(sub), "%s/50-dir.conf", dropins);
	mkdir(dropins, 0755);
	mkdir(sub, 0755);
	p = tmp_conf_write("main.conf", "[daemon]\n");
	cr_assert_eq(config_load(&cfg, p, dropins, &errs), 1);
	assert_error(0, "main.conf.d/50-dir.conf", 0, "a directory, not a regular file");
}

Test(config_input, the_socket_path_must_fit_a_unix_socket_address)
{
	char text[300], path[200];
	const char *p;

	memset(path, 's', sizeof(path));
	path[0] = '/';
	path[107] = '\0'; /* 107 bytes and the NUL: what sun_path holds */
	snprintf(text, sizeof(text), "[control]\nsocket = %s\n", path);
	p = tmp_conf_write("sock.conf", text);
	cr_assert_eq(config_load(&cfg, p, NULL, &errs), 0, "%s", errs.items[0].msg);
	cr_assert_str_eq(cfg.socket_path, path);
	path[107] = 's';
	path[108] = '\0';
	snprintf(text, sizeof(text), "[control]\nsocket = %s\n", path);
	p = tmp_conf_write("sock.conf", text);
	cr_assert_eq(config_load(&cfg, p, NULL, &errs), 1);
	assert_error(0, "sock.conf", 2, "at most 107 bytes");
}
