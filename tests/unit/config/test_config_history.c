// SPDX-License-Identifier: GPL-2.0
/* [history] and [metrics] keys: values, defaults and errors. */
#include <criterion/criterion.h>
#include <string.h>

#include "config/config.h"

#include "../support/tmp_conf.h"

TestSuite(config_history, .init = tmp_conf_init, .fini = tmp_conf_teardown);

static int load(const char *text, struct taod_config *cfg, struct config_errors *errs)
{
	return config_load(cfg, tmp_conf_write("taod.conf", text), NULL, errs);
}

Test(config_history, shipped_defaults)
{
	struct taod_config cfg;
	struct config_errors errs;

	cr_assert_eq(config_load(&cfg, "../config/taod.conf", NULL, &errs), 0);
	cr_assert_str_eq(cfg.history_path, "/var/lib/taod/history.db");
	cr_assert_eq(cfg.history_every, 10);
	cr_assert_eq(cfg.history_retention_ms, 7ULL * 86400 * 1000);
	cr_assert_eq(cfg.history_max_bytes, 256ULL << 20);
	cr_assert_str_eq(cfg.metrics_textfile, "", "textfile off unless asked");
}

Test(config_history, values_and_off)
{
	struct taod_config cfg;
	struct config_errors errs;

	cr_assert_eq(load("[history]\npath =\nevery = 3\nretention = 24h\nmax_size = 1G\n"
			  "[metrics]\ntextfile = /tmp/t.prom\n",
			  &cfg, &errs),
		     0, "%s", errs.items[0].msg);
	cr_assert_str_eq(cfg.history_path, "");
	cr_assert_eq(cfg.history_every, 3);
	cr_assert_eq(cfg.history_retention_ms, 86400000);
	cr_assert_eq(cfg.history_max_bytes, 1ULL << 30);
	cr_assert_str_eq(cfg.metrics_textfile, "/tmp/t.prom");
}

Test(config_history, errors_name_line_and_key)
{
	struct taod_config cfg;
	struct config_errors errs;

	cr_assert_eq(load("[history]\nevery = 0\nmax_size = lots\npath = relative.db\n"
			  "[metrics]\ntextfile = x\n",
			  &cfg, &errs),
		     4);
	cr_assert_eq(errs.items[0].line, 2);
	cr_assert(strstr(errs.items[0].msg,
			 "[history] every = \"0\": expected a whole number from 1 to 1000000"),
		  "%s", errs.items[0].msg);
	cr_assert(strstr(errs.items[1].msg, "max_size") && strstr(errs.items[1].msg, "64M"));
	cr_assert(strstr(errs.items[2].msg, "[history] path"));
	cr_assert(strstr(errs.items[3].msg, "[metrics] textfile") &&
		      strstr(errs.items[3].msg, "nothing to turn it off"),
		  "%s", errs.items[3].msg);
}
