// SPDX-License-Identifier: GPL-2.0
/* [enforce] in taod.conf fills struct act_settings; bad values name file:line. */
#include <criterion/criterion.h>
#include <string.h>

#include "config/config.h"

#include "../support/tmp_conf.h"

TestSuite(act_config, .init = tmp_conf_init, .fini = tmp_conf_teardown);

static const char *write_tmp(const char *text)
{
	return tmp_conf_write("taod.conf", text);
}

Test(act_config, enforce_section)
{
	struct taod_config cfg;
	struct config_errors errs;
	const char *p = write_tmp("[enforce]\nmode = enforce\nbackend = dry-run\n"
				  "actions_per_minute = 12\nshatter_bytes_per_minute = 64M\n"
				  "allowlist = /system.slice/* /init.scope\nzone_min = 1G\n"
				  "zone_max = 8G\nzone_headroom = 512M\nfree_floor = 2G\n"
				  "audit_log = /tmp/x/audit.jsonl\nzone_resize_every = 5m\n");

	cr_assert_eq(config_load(&cfg, p, NULL, &errs), 0, "%s", errs.items[0].msg);
	cr_assert_eq(cfg.enforce.mode, ACT_MODE_ENFORCE);
	cr_assert_eq(cfg.enforce.backend, BACKEND_DRY_RUN);
	cr_assert_eq(cfg.enforce.actions_per_minute, 12);
	cr_assert_eq(cfg.enforce.shatter_bytes_per_minute, 64ULL << 20);
	cr_assert_str_eq(cfg.enforce.allowlist, "/system.slice/* /init.scope");
	cr_assert_eq(cfg.enforce.zone_min, 1ULL << 30);
	cr_assert_eq(cfg.enforce.zone_max, 8ULL << 30);
	cr_assert_eq(cfg.enforce.zone_headroom, 512ULL << 20);
	cr_assert_eq(cfg.enforce.free_floor, 2ULL << 30);
	cr_assert_str_eq(cfg.enforce.audit_log, "/tmp/x/audit.jsonl");
	cr_assert_eq(cfg.enforce.zone_resize_every_ms, 300000);
}

Test(act_config, defaults_observe)
{
	struct taod_config cfg;

	config_defaults(&cfg);
	cr_assert_eq(cfg.enforce.mode, ACT_MODE_OBSERVE);
	cr_assert_eq(cfg.enforce.backend, BACKEND_AUTO);
	cr_assert_eq(cfg.enforce.zone_resize_every_ms, 60000);
}

Test(act_config, bad_values_name_the_line)
{
	struct taod_config cfg;
	struct config_errors errs;
	const char *p =
	    write_tmp("[enforce]\nmode = yes\nfree_floor = lots\nzone_resize_every = 0s\n");

	cr_assert_eq(config_load(&cfg, p, NULL, &errs), 3);
	cr_assert_eq(errs.items[0].line, 2);
	cr_assert(strstr(errs.items[0].msg, "observe, enforce"), "%s", errs.items[0].msg);
	cr_assert_eq(errs.items[1].line, 3);
	cr_assert(strstr(errs.items[1].msg, "a size"), "%s", errs.items[1].msg);
	cr_assert_eq(errs.items[2].line, 4);
	cr_assert(strstr(errs.items[2].msg, "zone_resize_every"), "%s", errs.items[2].msg);
}
