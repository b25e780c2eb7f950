// SPDX-License-Identifier: GPL-2.0
/*
 * [policy NAME] sections. A policy may appear in several files; keys given
 * later win. Keys a named policy leaves out are taken from the default
 * policy once every file has been read, so that a drop-in changing
 * [policy default] changes every policy that did not say otherwise.
 */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "config_internal.h"
#include "common/near_word.h"
#include "common/parse.h"
#include "policy.h"

#define COPY(dst, src) snprintf((dst), sizeof(dst), "%s", (src))
#define MAX_STEPS      1000

typedef int (*policy_setter)(struct policy *p, const char *v);

struct policy_setting {
	const char *key;
	enum policy_key bit;
	policy_setter set;
	const char *expected;
};

static int set_match(struct policy *p, const char *v)
{
	struct policy tmp = {0};
	char words[POLICY_MAX_GLOBS * POLICY_GLOB_MAX];
	char *save = NULL;

	if (strlen(v) >= sizeof(words))
		return -ENAMETOOLONG;
	strcpy(words, v);
	for (char *w = strtok_r(words, " \t", &save); w; w = strtok_r(NULL, " \t", &save)) {
		if (tmp.nglobs == POLICY_MAX_GLOBS || strlen(w) >= POLICY_GLOB_MAX ||
		    !config_glob_valid(w))
			return -EINVAL;
		COPY(tmp.globs[tmp.nglobs++], w);
	}
	if (!tmp.nglobs)
		return -EINVAL;
	memcpy(p->globs, tmp.globs, sizeof(p->globs));
	p->nglobs = tmp.nglobs;
	return 0;
}

static int set_percent(struct policy *p, const char *v)
{
	return parse_percent(v, &p->coverage_guarantee);
}

static int set_ratio(struct policy *p, const char *v)
{
	char *end;
	double d;

	errno = 0;
	d = strtod(v, &end);
	if (errno || end == v || *end || !isfinite(d) || d <= 0 || d > 100)
		return -EINVAL;
	p->max_split_ratio = d;
	return 0;
}

/* Policy durations and counts have ranges too (config.c says why). */
#define SEC_MS	     1000ULL
#define DAY_MS	     (86400 * SEC_MS)
#define POLICY_MS_HI (366 * DAY_MS)

static int duration_in(const char *v, uint64_t lo, uint64_t hi, uint64_t *out)
{
	uint64_t ms;
	int r = parse_duration_ms(v, &ms);

	if (!r)
		r = check_range(ms, lo, hi);
	if (!r)
		*out = ms;
	return r;
}

static int set_min_allocs(struct policy *p, const char *v)
{
	uint64_t n;
	int r = parse_u64(v, &n);

	if (!r)
		r = check_range(n, 0, 1000000000);
	if (!r)
		p->min_allocs = n;
	return r;
}

static int set_window(struct policy *p, const char *v)
{
	return duration_in(v, 10, 7 * DAY_MS, &p->window_ms);
}

static int set_cooldown(struct policy *p, const char *v)
{
	return duration_in(v, 0, POLICY_MS_HI, &p->cooldown_ms);
}

static int set_horizon(struct policy *p, const char *v)
{
	return duration_in(v, 1, POLICY_MS_HI, &p->horizon_ms);
}

/* One of two words: @yes sets *@out, @no clears it. */
static int two_words(const char *v, const char *yes, const char *no, bool *out)
{
	if (strcasecmp(v, yes) && strcasecmp(v, no))
		return -EINVAL;
	*out = !strcasecmp(v, yes);
	return 0;
}

static int set_act_on(struct policy *p, const char *v)
{
	return two_words(v, "misuser", "abuser", &p->act_on_misuser);
}

static int set_act_when(struct policy *p, const char *v)
{
	return two_words(v, "always", "need", &p->act_always);
}

static int set_sizes(struct policy *p, const char *v)
{
	if (!strcasecmp(v, "pmd"))
		p->sizes = POLICY_SIZES_PMD;
	else if (!strcasecmp(v, "mthp"))
		p->sizes = POLICY_SIZES_MTHP;
	else if (!strcasecmp(v, "all"))
		p->sizes = POLICY_SIZES_PMD | POLICY_SIZES_MTHP;
	else
		return -EINVAL;
	return 0;
}

static int set_dry_run(struct policy *p, const char *v)
{
	return parse_bool(v, &p->dry_run);
}

static int parse_steps(const char *v, unsigned *out)
{
	uint64_t n;

	if (parse_u64(v, &n) || n < 1 || n > MAX_STEPS)
		return -EINVAL;
	*out = (unsigned)n;
	return 0;
}

static int set_escalate(struct policy *p, const char *v)
{
	return parse_steps(v, &p->escalate_after);
}

static int set_relax(struct policy *p, const char *v)
{
	return parse_steps(v, &p->relax_after);
}

static int rung_by_name(const char *name, size_t len)
{
	for (int r = 0; r < RUNG_MAX; r++)
		if (strlen(ladder_rung_name(r)) == len &&
		    !strncasecmp(ladder_rung_name(r), name, len))
			return r;
	return -1;
}

/* One "rung:strike" word; rungs and strikes must both go up. */
static int ladder_word(char *w, unsigned ladder[RUNG_MAX], int *last_rung, unsigned *last_step)
{
	char *colon = strchr(w, ':');
	unsigned step;
	int rung;

	if (!colon || parse_steps(colon + 1, &step))
		return -EINVAL;
	rung = rung_by_name(w, (size_t)(colon - w));
	if (rung < 0 || rung <= *last_rung || step <= *last_step)
		return -EINVAL;
	ladder[rung] = step;
	*last_rung = rung;
	*last_step = step;
	return 0;
}

static int set_ladder(struct policy *p, const char *v)
{
	unsigned ladder[RUNG_MAX] = {0}, last_step = 0;
	char words[256], *save = NULL;
	int last_rung = -1, n = 0;

	if (strlen(v) >= sizeof(words))
		return -ENAMETOOLONG;
	strcpy(words, v);
	for (char *w = strtok_r(words, " \t", &save); w; w = strtok_r(NULL, " \t", &save), n++)
		if (ladder_word(w, ladder, &last_rung, &last_step))
			return -EINVAL;
	if (!n)
		return -EINVAL;
	memcpy(p->ladder, ladder, sizeof(ladder));
	return 0;
}

static const struct policy_setting policy_settings[] = {
    {"match", PK_MATCH, set_match,
     "up to 8 space-separated cgroup path globs, each starting with / or *"},
    {"coverage_guarantee", PK_COVERAGE_GUARANTEE, set_percent,
     "a percentage from 0 to 100 (0: no guarantee)"},
    {"max_split_ratio", PK_MAX_SPLIT_RATIO, set_ratio,
     "THP bytes broken per THP byte given or held, a number above 0 such as 0.25"},
    {"min_allocs", PK_MIN_ALLOCS, set_min_allocs, "a whole number from 0 to 1000000000"},
    {"window", PK_WINDOW, set_window, "a duration from 10ms to 7d such as 2s, 30s, 5m"},
    {"ladder", PK_LADDER, set_ladder, NULL /* the rungs come from the kinds' table */},
    {"cooldown", PK_COOLDOWN, set_cooldown, "a duration from 0s to 366d such as 30s, 5m"},
    {"dry_run", PK_DRY_RUN, set_dry_run, "yes or no"},
    {"escalate_after", PK_ESCALATE_AFTER, set_escalate, "a number of windows, 1 to 1000"},
    {"relax_after", PK_RELAX_AFTER, set_relax, "a number of windows, 1 to 1000"},
    {"horizon", PK_HORIZON, set_horizon, "a duration from 1ms to 366d such as 10m, 1h"},
    {"act_on", PK_ACT_ON, set_act_on, "misuser or abuser"},
    {"sizes", PK_SIZES, set_sizes,
     "pmd (PMD THPs), mthp (the sizes below the PMD, 16 KiB up) or all"},
    {"act_when", PK_ACT_WHEN, set_act_when,
     "need (only under contiguity pressure or while a tenant wants THPs) or always"},
};

#define NSETTINGS (sizeof(policy_settings) / sizeof(policy_settings[0]))

const char *policy_key_name(enum policy_key k)
{
	for (size_t i = 0; i < NSETTINGS; i++)
		if (policy_settings[i].bit == k)
			return policy_settings[i].key;
	return NULL;
}

bool config_glob_valid(const char *g)
{
	return g[0] == '/' || g[0] == '*';
}

static bool name_valid(const char *name)
{
	if (!*name || strlen(name) >= POLICY_NAME_MAX)
		return false;
	for (const char *c = name; *c; c++)
		if (!isalnum((unsigned char)*c) && !strchr("_.-", *c))
			return false;
	return true;
}

static struct policy *policy_get(struct config_parse *p, const char *section, const char *name)
{
	struct policy_set *set = &p->cfg->policies;
	struct policy *pol = (struct policy *)policy_find(set, name);

	if (pol && !pol->line && p->line > 0) {
		/* The built-in default, now given in a file: say where. */
		COPY(pol->file, p->file);
		pol->line = p->line;
	}
	if (pol)
		return pol;
	if (set->n == TAOD_MAX_POLICIES) {
		config_error_add(p, "[%s] too many policies (at most %d)", section,
				 TAOD_MAX_POLICIES);
		return NULL;
	}
	pol = &set->v[set->n++];
	memset(pol, 0, sizeof(*pol));
	COPY(pol->name, name);
	COPY(pol->file, p->file);
	pol->line = p->line;
	return pol;
}

static const char *expected_text(const struct policy_setting *s, char *buf, size_t len)
{
	char rungs[128];

	if (s->expected)
		return s->expected;
	ladder_rung_names(rungs, sizeof(rungs));
	snprintf(buf, len,
		 "rungs %s in this order, each NAME:STRIKE with strikes going up, such as "
		 "warn:1 restrict:3 shatter:5",
		 rungs);
	return buf;
}

static void apply_policy_key(struct config_parse *p, const char *section, struct policy *pol,
			     const char *key, const char *value)
{
	struct near_word near;
	char expected[256];

	for (size_t i = 0; i < NSETTINGS; i++) {
		const struct policy_setting *s = &policy_settings[i];

		if (strcmp(s->key, key))
			continue;
		if (s->bit == PK_MATCH && !strcmp(pol->name, POLICY_DEFAULT))
			config_error_add(p,
					 "[%s] match: the default policy matches every cgroup "
					 "that no other policy matches; it takes no match key",
					 section);
		else if (s->set(pol, value))
			config_error_add(p, "[%s] %s = \"%s\": expected %s", section, key, value,
					 expected_text(s, expected, sizeof(expected)));
		else
			pol->set |= 1u << s->bit;
		return;
	}
	near_word_init(&near, key);
	for (size_t i = 0; i < NSETTINGS; i++)
		near_word_offer(&near, policy_settings[i].key);
	if (near_word_best(&near))
		config_error_add(p, "[%s] unknown key \"%s\" (did you mean %s?)", section, key,
				 near_word_best(&near));
	else
		config_error_add(p, "[%s] unknown key \"%s\"", section, key);
}

bool config_is_policy_section(const char *section)
{
	return !strncmp(section, "policy", 6) &&
	       (!section[6] || isspace((unsigned char)section[6]));
}

int config_policy_entry(struct config_parse *p, const char *section, const char *key,
			const char *value)
{
	const char *name = section + 6;
	struct policy *pol;

	while (isspace((unsigned char)*name))
		name++;
	if (!name_valid(name)) {
		config_error_add(p,
				 "[%s] policy name must be 1 to %d letters, digits, _ . or -: "
				 "[policy NAME]",
				 section, POLICY_NAME_MAX - 1);
		return 1;
	}
	pol = policy_get(p, section, name);
	if (pol)
		apply_policy_key(p, section, pol, key, value);
	return 1;
}

#define PFIELD(f) offsetof(struct policy, f), sizeof(((struct policy *)0)->f)

/* The keys a policy takes from the default one when it leaves them out. */
static const struct {
	enum policy_key bit;
	size_t offset, size;
} inheritable[] = {
    {PK_COVERAGE_GUARANTEE, PFIELD(coverage_guarantee)},
    {PK_MAX_SPLIT_RATIO, PFIELD(max_split_ratio)},
    {PK_MIN_ALLOCS, PFIELD(min_allocs)},
    {PK_WINDOW, PFIELD(window_ms)},
    {PK_LADDER, PFIELD(ladder)},
    {PK_COOLDOWN, PFIELD(cooldown_ms)},
    {PK_DRY_RUN, PFIELD(dry_run)},
    {PK_ESCALATE_AFTER, PFIELD(escalate_after)},
    {PK_RELAX_AFTER, PFIELD(relax_after)},
    {PK_HORIZON, PFIELD(horizon_ms)},
    {PK_ACT_ON, PFIELD(act_on_misuser)},
    {PK_SIZES, PFIELD(sizes)},
    {PK_ACT_WHEN, PFIELD(act_always)},
};

static void inherit_defaults(struct policy *pol, const struct policy *def)
{
	for (size_t i = 0; i < sizeof(inheritable) / sizeof(inheritable[0]); i++)
		if (!(pol->set & (1u << inheritable[i].bit)))
			memcpy((char *)pol + inheritable[i].offset,
			       (const char *)def + inheritable[i].offset, inheritable[i].size);
}

void config_policies_finish(struct config_parse *p)
{
	static unsigned loads;
	struct policy_set *set = &p->cfg->policies;

	set->gen = ++loads;
	for (unsigned i = 1; i < set->n; i++) {
		struct policy *pol = &set->v[i];

		inherit_defaults(pol, &set->v[0]);
		if (pol->nglobs)
			continue;
		COPY(p->file, pol->file);
		p->line = pol->line;
		config_error_add(p, "[policy %s] has no match key: add match = GLOB ...",
				 pol->name);
	}
}
