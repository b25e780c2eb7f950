// SPDX-License-Identifier: GPL-2.0
/* The class hysteresis holds says why it differs from the last score. */
#include <criterion/criterion.h>
#include <signal.h>
#include <string.h>

#include "decide/decide.h"

static struct policy pol = {.escalate_after = 2, .relax_after = 3};

Test(hysteresis, held_up_names_the_score_and_the_streak)
{
	struct cg_judge j = {.cls = CLASS_GOOD, .has_verdict = true};
	char buf[96];

	j.last = (struct verdict){.judged = true, .score = 4.0};
	j.last.level = CLASS_ABUSER;
	hysteresis_step(&j, j.last.level, &pol, 1000);
	cr_assert_eq(j.cls, CLASS_GOOD, "one window of two");
	cr_assert(hysteresis_held(&j, &pol, buf, sizeof(buf)));
	cr_assert_str_eq(buf, "score 4.00 above 2 for 1 of 2 windows");
	hysteresis_step(&j, j.last.level, &pol, 2000);
	cr_assert_eq(j.cls, CLASS_ABUSER);
	cr_assert_not(hysteresis_held(&j, &pol, buf, sizeof(buf)), "class and score agree");
}

Test(hysteresis, held_down_says_not_above_or_unjudged)
{
	struct cg_judge j = {.cls = CLASS_MISUSER, .has_verdict = true};
	char buf[96];

	j.last = (struct verdict){.judged = true, .score = 0.5, .level = CLASS_GOOD};
	hysteresis_step(&j, j.last.level, &pol, 1000);
	cr_assert(hysteresis_held(&j, &pol, buf, sizeof(buf)));
	cr_assert_str_eq(buf, "score 0.50 not above 1 for 1 of 3 windows");
	j.last = (struct verdict){.judged = false, .level = CLASS_GOOD};
	hysteresis_step(&j, j.last.level, &pol, 2000);
	cr_assert(hysteresis_held(&j, &pol, buf, sizeof(buf)));
	cr_assert_str_eq(buf, "too few THPs to judge for 2 of 3 windows");
}

/* Too few THPs to judge, a score past the class: one window of the streak. */
Test(hysteresis, an_unjudged_window_past_the_class_counts_but_does_not_move)
{
	struct cg_judge j = {.cls = CLASS_GOOD, .has_verdict = true};
	char buf[96];

	j.last = (struct verdict){.judged = false, .score = 4.0, .unjudged_level = CLASS_ABUSER};
	cr_assert_not(hysteresis_window(&j, &j.last, &pol, 1000));
	cr_assert_not(hysteresis_window(&j, &j.last, &pol, 2000));
	cr_assert_eq(j.cls, CLASS_GOOD);
	cr_assert_eq(j.up_streak, 1);
	cr_assert(hysteresis_held(&j, &pol, buf, sizeof(buf)));
	cr_assert_str_eq(buf, "score 4.00 above 2 for 1 of 2 windows, too few THPs to class");
	j.last = (struct verdict){.judged = true, .score = 4.0, .level = CLASS_ABUSER};
	cr_assert(hysteresis_window(&j, &j.last, &pol, 3000));
	cr_assert_eq(j.cls, CLASS_ABUSER);
}

Test(hysteresis, never_judged_is_never_held)
{
	struct cg_judge j = {.cls = CLASS_GOOD};
	char buf[96];

	j.last.level = CLASS_ABUSER;
	cr_assert_not(hysteresis_held(&j, &pol, buf, sizeof(buf)));
}

/* decide judges levels it computed itself: one past the classes is a bug. */
Test(hysteresis, hysteresis_step_beyond_the_classes_aborts, .signal = SIGABRT)
{
	struct cg_judge j = {.cls = CLASS_GOOD};

	hysteresis_step(&j, CLASS_MAX, &pol, 1000);
}
