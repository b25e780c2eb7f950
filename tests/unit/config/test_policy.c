// SPDX-License-Identifier: GPL-2.0
/* Policy sections: parsing, inheritance, errors with file:line, matching. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "config/config.h"
#include "decide/decide.h"
#include "decide/policy_match.h"
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

#define write_conf tmp_conf_write

static int load(const char *text)
{
	return config_load(&cfg, write_conf("taod.conf", text), NULL, &errs);
}

static const char *winner(const char *path)
{
	return policy_lookup(&cfg.policies, path, NULL)->name;
}

TestSuite(policy, .init = setup, .fini = teardown);

Test(policy, builtin_default_when_none_configured)
{
	cr_assert_eq(load("[daemon]\n"), 0);
	cr_assert_eq(cfg.policies.n, 1);
	cr_assert_str_eq(winner("/anything"), "default");
	cr_assert_float_eq(cfg.policies.v[0].max_split_ratio, 0.25, 1e-9);
	cr_assert_eq(cfg.policies.v[0].ladder[RUNG_SHATTER], 5);
}

Test(policy, keys_parsed_and_missing_ones_inherited_from_default)
{
	const struct policy *web;

	/* The default comes after the named policy and still passes its keys on. */
	cr_assert_eq(load("[policy web]\n"
			  "match = /web/* /frontend\n"
			  "coverage_guarantee = 80%\n"
			  "ladder = observe:1 warn:2 shatter:4\n"
			  "dry_run = yes\n"
			  "[policy default]\n"
			  "window = 5s\n"
			  "max_split_ratio = 0.1\n"
			  "cooldown = 0s\n"
			  "escalate_after = 3\n"),
		     0, "%s:%d: %s", errs.items[0].file, errs.items[0].line, errs.items[0].msg);
	web = policy_find(&cfg.policies, "web");
	cr_assert_not_null(web);
	cr_assert_eq(web->nglobs, 2);
	cr_assert_str_eq(web->globs[1], "/frontend");
	cr_assert_float_eq(web->coverage_guarantee, 80, 1e-9);
	cr_assert_eq(web->ladder[RUNG_OBSERVE], 1);
	cr_assert_eq(web->ladder[RUNG_WARN], 2);
	cr_assert_eq(web->ladder[RUNG_RESTRICT], 0);
	cr_assert_eq(web->ladder[RUNG_SHATTER], 4);
	cr_assert(web->dry_run);
	cr_assert_eq(web->window_ms, 5000);
	cr_assert_float_eq(web->max_split_ratio, 0.1, 1e-9);
	cr_assert_eq(web->cooldown_ms, 0);
	cr_assert_eq(web->escalate_after, 3);
	cr_assert_eq(web->relax_after, 3); /* built-in default */
	cr_assert_eq(web->line, 2);
}

Test(policy, dropin_extends_a_policy_and_replaces_its_globs)
{
	char dropins[256];
	const char *p;

	snprintf(dropins, sizeof(dropins), "%s/d", dir);
	mkdir(dropins, 0755);
	write_conf("d/10.conf", "[policy web]\nmatch = /w2/*\nmin_allocs = 7\n");
	p = write_conf("taod.conf", "[policy web]\nmatch = /w1/*\nmin_allocs = 3\n");
	cr_assert_eq(config_load(&cfg, p, dropins, &errs), 0);
	cr_assert_eq(cfg.policies.n, 2);
	cr_assert_eq(cfg.policies.v[1].nglobs, 1);
	cr_assert_str_eq(cfg.policies.v[1].globs[0], "/w2/*");
	cr_assert_eq(cfg.policies.v[1].min_allocs, 7);
}

static void assert_error(int i, int line, const char *needle)
{
	cr_assert(i < errs.count, "only %d errors", errs.count);
	cr_assert_eq(errs.items[i].line, line, "error %d at line %d: %s", i, errs.items[i].line,
		     errs.items[i].msg);
	cr_assert(strstr(errs.items[i].msg, needle), "error %d: %s", i, errs.items[i].msg);
}

Test(policy, every_error_names_file_line_section_and_key)
{
	int n = load("[policy web]\n"		    /* 1 */
		     "match = /web/*\n"		    /* 2 */
		     "ladder = shatter:1 warn:3\n"  /* 3: rungs out of order */
		     "max_split_ratio = lots\n"	    /* 4 */
		     "colour = red\n"		    /* 5 */
		     "ladder = warn:3 restrict:3\n" /* 6: strikes must go up */
		     "[policy default]\n"	    /* 7 */
		     "match = /x\n"		    /* 8 */
		     "window = 0s\n"		    /* 9 */
		     "[policy bad name]\n"	    /* 10 */
		     "window = 1s\n"		    /* 11 */
		     "[policy nomatch]\n"	    /* 12 */
		     "window = 1s\n"		    /* 13 */
		     "[policy rel]\n"		    /* 14 */
		     "match = relative/*\n"	    /* 15 */
		     "ladder = punish:1\n"	    /* 16 */
		     "coverage_guarantee = 120\n"); /* 17 */

	cr_assert_eq(n, 13, "%d errors", n);
	assert_error(0, 3, "[policy web] ladder = \"shatter:1 warn:3\": expected rungs");
	assert_error(1, 4, "[policy web] max_split_ratio = \"lots\"");
	assert_error(2, 5, "[policy web] unknown key \"colour\"");
	assert_error(3, 6, "[policy web] ladder");
	/* A key given twice in one file, found at its end, in line order. */
	assert_error(4, 6, "[policy web] ladder is set again (first at line 3)");
	assert_error(5, 8, "[policy default] match: the default policy");
	assert_error(6, 9, "[policy default] window = \"0s\"");
	assert_error(7, 11, "[policy bad name] policy name must be");
	assert_error(8, 15, "[policy rel] match = \"relative/*\"");
	assert_error(9, 16, "[policy rel] ladder = \"punish:1\"");
	assert_error(10, 17, "[policy rel] coverage_guarantee = \"120\"");
	/* Found once every file is read, reported where the section began. */
	assert_error(11, 13, "[policy nomatch] has no match key");
	assert_error(12, 15, "[policy rel] has no match key");
	cr_assert_str_eq(errs.items[0].file, errs.items[11].file);
}

Test(policy, specificity_counts_literals_and_wildcards)
{
	struct glob_specificity s;

	glob_specificity("/a/b*", &s);
	cr_assert_eq(s.literals, 4);
	cr_assert_eq(s.wildcards, 1);
	glob_specificity("/a/[bc]?d\\*", &s);
	cr_assert_eq(s.literals, 5); /* / a / d and the escaped * */
	cr_assert_eq(s.wildcards, 2);
	glob_specificity("/a[", &s); /* an unclosed [ is a literal */
	cr_assert_eq(s.literals, 3);
	cr_assert_eq(s.wildcards, 0);
}

Test(policy, most_specific_match_wins)
{
	struct policy_match m;

	cr_assert_eq(load("[policy all]\nmatch = *\n"
			  "[policy kube]\nmatch = /kubepods/*\n"
			  "[policy burst]\nmatch = /kubepods/burst*\n"
			  "[policy exact]\nmatch = /kubepods/burstable\n"
			  "[policy multi]\nmatch = /x/* /kubepods/b?rst*\n"),
		     0);
	cr_assert_str_eq(winner("/kubepods/besteffort/pod1"), "kube");
	cr_assert_str_eq(winner("/kubepods/burstable/pod1"), "burst");
	cr_assert_str_eq(winner("/kubepods/burstable"), "exact");
	cr_assert_str_eq(winner("/system.slice"), "all");
	policy_lookup(&cfg.policies, "/kubepods/burstable/pod1", &m);
	cr_assert_eq(m.ncand, 4); /* all, kube, burst, multi */
	cr_assert_str_eq(m.glob, "/kubepods/burst*");
}

Test(policy, ties_go_to_fewer_wildcards_then_the_later_definition)
{
	cr_assert_eq(load("[policy first]\nmatch = /a/*x\n"
			  "[policy twostars]\nmatch = /a/**x\n"
			  "[policy second]\nmatch = /a/?x\n"),
		     0);
	/* first and second: 3 literals, 1 wildcard; second is defined later. */
	cr_assert_str_eq(winner("/a/bx"), "second");
	/* Only first and twostars match: fewer wildcards wins. */
	cr_assert_str_eq(winner("/a/bbx"), "first");
}

Test(policy, no_match_falls_back_to_default)
{
	struct policy_match m;

	cr_assert_eq(load("[policy web]\nmatch = /web/*\n"), 0);
	cr_assert_str_eq(policy_lookup(&cfg.policies, "/db/1", &m)->name, "default");
	cr_assert_eq(m.ncand, 0);
	cr_assert_null(m.glob);
}

Test(policy, ladder_rungs_for_strikes)
{
	struct policy p;

	policy_builtin_default(&p); /* warn:1 restrict:3 shatter:5 */
	cr_assert_eq(ladder_rung_for(&p, 0), RUNG_OBSERVE);
	cr_assert_eq(ladder_rung_for(&p, 1), RUNG_WARN);
	cr_assert_eq(ladder_rung_for(&p, 2), RUNG_WARN);
	cr_assert_eq(ladder_rung_for(&p, 3), RUNG_RESTRICT);
	cr_assert_eq(ladder_rung_for(&p, 9), RUNG_SHATTER);
}

/* Rung r asks for action kind r - 1; kinds that are no rung have no name here. */
Test(policy, ladder_rung_kind_and_name_from_the_kinds_table)
{
	cr_assert_eq(ladder_rung_kind(RUNG_WARN), ACTION_WARN);
	cr_assert_eq(ladder_rung_kind(RUNG_RESTRICT), ACTION_RESTRICT);
	cr_assert_eq(ladder_rung_kind(RUNG_SHATTER), ACTION_SHATTER);
	cr_assert_str_eq(ladder_rung_name(RUNG_OBSERVE), "observe");
	cr_assert_str_eq(ladder_rung_name(RUNG_RESTRICT), "restrict");
	cr_assert_str_eq(ladder_rung_name(RUNG_GRANT), "?");
	cr_assert_str_eq(ladder_rung_name(RUNG_RESIZE_ZONES), "?");
}

Test(policy, ladder_rung_names_in_their_order)
{
	char buf[128];

	ladder_rung_names(buf, sizeof(buf));
	cr_assert_str_eq(buf, "observe, warn, restrict, shatter");
}

/* A kind that is no rung is refused, and the error names the rungs. */
Test(policy, ladder_refuses_a_kind_that_is_no_rung)
{
	cr_assert_neq(load("[policy default]\nladder = warn:1 grant:2\n"), 0);
	cr_assert(strstr(errs.items[0].msg, "rungs observe, warn, restrict, shatter in this order"),
		  "%s", errs.items[0].msg);
	cr_assert_neq(load("[policy default]\nladder = collapse:1\n"), 0);
}

/* sizes: pmd (built-in), mthp or all, inherited from the default; anything
 * else is an error naming the line and the values it takes. */
Test(policy, sizes_key_parsed_inherited_and_checked)
{
	cr_assert_eq(load("[policy default]\nsizes = all\n"
			  "[policy small]\nmatch = /s/*\nsizes = mthp\n"
			  "[policy other]\nmatch = /o/*\n"),
		     0);
	cr_assert_eq(cfg.policies.v[0].sizes, POLICY_SIZES_PMD | POLICY_SIZES_MTHP);
	cr_assert_eq(policy_find(&cfg.policies, "small")->sizes, POLICY_SIZES_MTHP);
	cr_assert_eq(policy_find(&cfg.policies, "other")->sizes,
		     POLICY_SIZES_PMD | POLICY_SIZES_MTHP);
	cr_assert_str_eq(policy_sizes_name(POLICY_SIZES_MTHP), "mthp");
	cr_assert_eq(load("[daemon]\n"), 0);
	cr_assert_eq(cfg.policies.v[0].sizes, POLICY_SIZES_PMD);
	cr_assert_neq(load("[policy p]\nmatch = /p\nsizes = 64k\n"), 0);
	assert_error(0, 3, "pmd (PMD THPs), mthp");
}

/* act_when: need (the built-in) or always, inherited from the default;
 * anything else is an error at its file:line. */
Test(policy, act_when_key_parsed_inherited_and_checked)
{
	cr_assert_eq(load("[daemon]\n"), 0);
	cr_assert_not(cfg.policies.v[0].act_always);
	cr_assert_eq(load("[policy default]\nact_when = always\n"
			  "[policy careful]\nmatch = /c/*\nact_when = need\n"
			  "[policy other]\nmatch = /o/*\n"),
		     0);
	cr_assert(cfg.policies.v[0].act_always);
	cr_assert_not(policy_find(&cfg.policies, "careful")->act_always);
	cr_assert(policy_find(&cfg.policies, "other")->act_always);
	cr_assert_neq(load("[policy p]\nmatch = /p\nact_when = sometimes\n"), 0);
	assert_error(0, 3,
		     "[policy p] act_when = \"sometimes\": expected need (only under "
		     "contiguity pressure");
}

/* The [pressure] figures a load left, and [enforce] compact_interval. */
static void assert_pressure(uint64_t free_some, uint64_t psi_full, uint64_t hold_ms,
			    uint64_t interval_ms)
{
	cr_assert_eq(cfg.pressure.some[PIN_FREE_PMD_BLOCKS], free_some);
	cr_assert_eq(cfg.pressure.full[PIN_PSI_FULL], psi_full);
	cr_assert_eq(cfg.pressure.hold_ms, hold_ms);
	cr_assert_eq(cfg.enforce.compact_interval_ms, interval_ms);
}

/* [pressure]: a threshold per input and level, from the inputs' table. */
Test(policy, pressure_keys_from_the_input_table)
{
	cr_assert_eq(load("[daemon]\n"), 0);
	assert_pressure(64, 0, 30000, 60000); /* PSI enters no level unless set */
	cr_assert_eq(load("[pressure]\nfree_pmd_blocks_some = 1000\npsi_full_full = 20\n"
			  "hold = 5s\n[enforce]\ncompact_interval = 2m\n"),
		     0);
	assert_pressure(1000, 20, 5000, 120000);
	cr_assert_neq(load("[pressure]\ncompact_stall_some = -1\nwanting_fallbacks = 0\n"
			   "nonsense_some = 3\n"),
		      0);
	cr_assert_eq(errs.total, 3, "%d", errs.total);
	assert_error(0, 2, "[pressure] compact_stall_some");
	assert_error(1, 3, "[pressure] wanting_fallbacks");
}
