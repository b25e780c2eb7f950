// SPDX-License-Identifier: GPL-2.0
/*
 * Classes move only after several windows in a row agree: escalate_after
 * windows worse than the class to move up, relax_after windows better to
 * move down. The class moved to is the least change all windows of the
 * streak agree on (two abuser windows and a misuser one make a misuser).
 * A window at the class breaks both streaks. A window with too few THPs
 * to judge whose score is past the class counts toward the streak up but
 * cannot end it: a tenant that starts wasting while small is classed at
 * its first judged window after, not escalate_after judged windows later
 * (issue 26 item 4). A tenant with no live task and no anon memory moves
 * no class: whatever a shutdown broke, it freed.
 */
#include <assert.h>
#include <stdio.h>

#include "decide.h"

static bool streak_up(struct cg_judge *j, enum cg_class level, unsigned need)
{
	j->down_streak = 0;
	if (!j->up_streak || level < j->up_bound)
		j->up_bound = level;
	if (++j->up_streak < need)
		return false;
	j->cls = j->up_bound;
	return true;
}

static bool streak_down(struct cg_judge *j, enum cg_class level, unsigned need)
{
	j->up_streak = 0;
	if (!j->down_streak || level > j->down_bound)
		j->down_bound = level;
	if (++j->down_streak < need)
		return false;
	j->cls = j->down_bound;
	return true;
}

/* Up the streak by an unjudged window, short of what moves the class. */
static void streak_pending(struct cg_judge *j, enum cg_class level, unsigned need)
{
	j->down_streak = 0;
	if (!j->up_streak || level < j->up_bound)
		j->up_bound = level;
	if (j->up_streak + 1 < need)
		j->up_streak++;
}

bool hysteresis_step(struct cg_judge *j, enum cg_class level, const struct policy *p,
		     uint64_t now_ms)
{
	assert(j);
	assert(p);
	assert(level < CLASS_MAX);
	assert(j->cls < CLASS_MAX);

	bool moved = false;

	if (level > j->cls)
		moved = streak_up(j, level, p->escalate_after);
	else if (level < j->cls)
		moved = streak_down(j, level, p->relax_after);
	else
		j->up_streak = j->down_streak = 0;
	if (moved) {
		j->up_streak = j->down_streak = 0;
		j->class_since_ms = now_ms;
	}
	return moved;
}

bool hysteresis_window(struct cg_judge *j, const struct verdict *v, const struct policy *p,
		       uint64_t now_ms)
{
	assert(j && v && p);
	assert(v->unjudged_level < CLASS_MAX);

	if (v->empty) {
		j->up_streak = j->down_streak = 0;
		return false;
	}
	if (!v->judged && v->unjudged_level > j->cls) {
		streak_pending(j, v->unjudged_level, p->escalate_after);
		return false;
	}
	return hysteresis_step(j, v->level, p, now_ms);
}

/* The score a window must be above to be @c or worse. */
static double class_floor(enum cg_class c)
{
	return c == CLASS_ABUSER ? DECIDE_ABUSER_SCORE : 1.0;
}

bool hysteresis_held(const struct cg_judge *j, const struct policy *p, char *buf, size_t len)
{
	assert(j);
	assert(p);
	assert(buf && len);

	const struct verdict *v = &j->last;

	if (!j->has_verdict)
		return false;
	if (!v->judged && !v->empty && v->unjudged_level > j->cls) {
		snprintf(buf, len,
			 "score %.2f above %g for %u of %u windows, too few THPs to class",
			 v->score, class_floor(v->unjudged_level), j->up_streak, p->escalate_after);
		return true;
	}
	if (v->level == j->cls)
		return false;
	if (v->empty)
		snprintf(buf, len, "no live task and no anon memory: nothing to judge");
	else if (v->level > j->cls)
		snprintf(buf, len, "score %.2f above %g for %u of %u windows", v->score,
			 class_floor(v->level), j->up_streak, p->escalate_after);
	else if (!v->judged)
		snprintf(buf, len, "too few THPs to judge for %u of %u windows", j->down_streak,
			 p->relax_after);
	else
		snprintf(buf, len, "score %.2f not above %g for %u of %u windows", v->score,
			 class_floor(j->cls), j->down_streak, p->relax_after);
	return true;
}

const char *cg_class_name(enum cg_class c)
{
	static const char *const names[CLASS_MAX] = {
	    [CLASS_GOOD] = "good",
	    [CLASS_MISUSER] = "misuser",
	    [CLASS_ABUSER] = "abuser",
	};

	return c < CLASS_MAX ? names[c] : "?";
}
