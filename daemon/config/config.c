// SPDX-License-Identifier: GPL-2.0
/*
 * taod.conf reader. Settings are described by one table; every problem is
 * recorded as file:line with the section and key, and parsing goes on so
 * that one run shows all of them.
 */
#include "config.h"

#include <assert.h>
#include <dirent.h>
#include <ctype.h>
#include <errno.h>
#include <ini.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/un.h>
#include <syslog.h>

#include "config_internal.h"
#include "common/near_word.h"
#include "common/parse.h"

enum setting_type {
	T_DURATION,
	T_PATH,
	T_OPT_PATH,
	T_SOCKET, /* an absolute path that fits a Unix socket address */
	T_NAME,
	T_LIST,	 /* words, may be empty */
	T_GLOBS, /* cgroup globs, each maybe "=GLOB"; may be empty */
	T_MODE,
	T_U64,
	T_PERCENT, /* a whole percentage, 1 to 99 */
	T_COUNT,
	T_SIZE,
	T_ENUM
};

struct enum_value {
	const char *name;
	int value;
};

struct setting {
	const char *section;
	const char *key;
	enum setting_type type;
	size_t offset;
	size_t size;
	const struct enum_value *values; /* T_ENUM, NULL-terminated */
	uint64_t lo, hi;		 /* numbers: the range; hi 0: the type's own */
};

/*
 * Every number has a range, so that no sum or product of them wraps: a
 * tick of 2^64 ms used to wrap to a few hundred microseconds, a cooldown
 * to "now". A row narrows its type's range where the key needs it.
 */
#define SEC_MS	      1000ULL
#define DAY_MS	      (86400 * SEC_MS)
#define DURATION_HI   (366 * DAY_MS)
#define SIZE_HI	      (1ULL << 50) /* 1 PiB */
#define NUMBER_HI     1000000000000ULL
#define RANGE(lo, hi) NULL, (lo), (hi)

static void setting_range(const struct setting *s, uint64_t *lo, uint64_t *hi)
{
	static const struct {
		enum setting_type type;
		uint64_t lo, hi;
	} ranges[] = {{T_DURATION, 1, DURATION_HI},
		      {T_U64, 0, NUMBER_HI},
		      {T_COUNT, 1, NUMBER_HI},
		      {T_PERCENT, 1, 99},
		      {T_SIZE, 0, SIZE_HI}};

	*lo = s->lo;
	*hi = s->hi;
	for (size_t i = 0; !s->hi && i < sizeof(ranges) / sizeof(ranges[0]); i++)
		if (ranges[i].type == s->type) {
			*lo = ranges[i].lo;
			*hi = ranges[i].hi;
		}
}

static const struct enum_value tao_values[] = {
    {"auto", TAO_AUTO}, {"yes", TAO_YES}, {"no", TAO_NO}, {NULL, 0}};
static const struct enum_value attach_values[] = {{"auto", ATTACH_AUTO},
						  {"fentry", ATTACH_FENTRY},
						  {"tracepoint", ATTACH_TRACEPOINT},
						  {"memcg", ATTACH_MEMCG},
						  {NULL, 0}};
static const struct enum_value readers_values[] = {
    {"all", READERS_ALL}, {"root", READERS_ROOT}, {NULL, 0}};
static const struct enum_value cgroup_version_values[] = {
    {"auto", 0}, {"1", 1}, {"2", 2}, {NULL, 0}};
static const struct enum_value act_mode_values[] = {
    {"observe", ACT_MODE_OBSERVE}, {"enforce", ACT_MODE_ENFORCE}, {NULL, 0}};
static const struct enum_value backend_values[] = {{"auto", BACKEND_AUTO},
						   {"tao", BACKEND_TAO},
						   {"stock", BACKEND_STOCK},
						   {"dry-run", BACKEND_DRY_RUN},
						   {NULL, 0}};
static const struct enum_value yes_no_values[] = {{"no", 0}, {"yes", 1}, {NULL, 0}};
static const struct enum_value log_level_values[] = {
    {"err", LOG_ERR},	{"warning", LOG_WARNING}, {"notice", LOG_NOTICE},
    {"info", LOG_INFO}, {"debug", LOG_DEBUG},	  {NULL, 0}};

#define FIELD(f) offsetof(struct taod_config, f), sizeof(((struct taod_config *)0)->f)
#define KPATH(key, f)                                                                              \
	{                                                                                          \
		"kernel", key, T_PATH, FIELD(k.f), NULL                                            \
	}
#define KNAME(key, f)                                                                              \
	{                                                                                          \
		"kernel", key, T_NAME, FIELD(k.f), NULL                                            \
	}

static const struct setting settings[] = {
    {"daemon", "tick", T_DURATION, FIELD(tick_ms), RANGE(10, 600 * SEC_MS)},
    {"daemon", "root", T_PATH, FIELD(root), NULL},
    {"daemon", "log_level", T_ENUM, FIELD(log_level), log_level_values},
    {"control", "socket", T_SOCKET, FIELD(socket_path), NULL},
    {"control", "socket_mode", T_MODE, FIELD(socket_mode), NULL},
    {"control", "group", T_NAME, FIELD(group), NULL},
    {"control", "readers", T_ENUM, FIELD(readers), readers_values},
    {"control", "reply_memory", T_SIZE, FIELD(reply_memory), RANGE(4096, 1ULL << 30)},
    {"kernel", "tao", T_ENUM, FIELD(tao), tao_values},
    {"kernel", "attach", T_ENUM, FIELD(attach), attach_values},
    {"kernel", "unmap_pair_window", T_DURATION, FIELD(unmap_pair_window_ms), RANGE(1, 60 * SEC_MS)},
    {"kernel", "cgroup_map_entries", T_COUNT, FIELD(cgroup_map_entries), RANGE(64, 1 << 20)},
    {"kernel", "cgroup_version", T_ENUM, FIELD(cgroup_version), cgroup_version_values},
    KPATH("btf", btf),
    KPATH("cgroup_root", cgroup_root),
    KPATH("mounts", mounts),
    KPATH("zoneinfo", zoneinfo),
    KPATH("buddyinfo", buddyinfo),
    KPATH("vmstat", vmstat),
    KPATH("cmdline", cmdline),
    KPATH("thp_sysfs", thp_sysfs),
    KPATH("memory_blocks", memory_blocks),
    KPATH("split_huge_pages", split_huge_pages),
    KPATH("compact_memory", compact_memory),
    KPATH("percpu_pagelist_high_fraction", percpu_pagelist_high_fraction),
    KPATH("tracefs", tracefs),
    KPATH("debugfs", debugfs),
    KNAME("memstat_v2_anon", memstat_v2_anon),
    KNAME("memstat_v2_thp", memstat_v2_thp),
    KNAME("memstat_v1_anon", memstat_v1_anon),
    KNAME("memstat_v1_thp", memstat_v1_thp),
    KNAME("memcg_thp_shatter", memcg_thp_shatter),
    KNAME("memcg_thp_zones", memcg_thp_zones),
    KNAME("zone_nosplit", zone_nosplit),
    KNAME("zone_nomerge", zone_nomerge),
    KNAME("state_online_nosplit", state_online_nosplit),
    KNAME("state_online_nomerge", state_online_nomerge),
    KNAME("state_online_movable", state_online_movable),
    KNAME("state_offline", state_offline),
    {"history", "sample_keep", T_U64, FIELD(sample_keep), RANGE(0, 100000000)},
    {"enforce", "mode", T_ENUM, FIELD(enforce.mode), act_mode_values},
    {"enforce", "backend", T_ENUM, FIELD(enforce.backend), backend_values},
    {"enforce", "actions_per_minute", T_U64, FIELD(enforce.actions_per_minute), NULL},
    {"enforce", "shatter_bytes_per_minute", T_SIZE, FIELD(enforce.shatter_bytes_per_minute), NULL},
    {"enforce", "allowlist", T_GLOBS, FIELD(enforce.allowlist), NULL},
    {"enforce", "zone_min", T_SIZE, FIELD(enforce.zone_min), NULL},
    {"enforce", "zone_max", T_SIZE, FIELD(enforce.zone_max), NULL},
    {"enforce", "zone_headroom", T_SIZE, FIELD(enforce.zone_headroom), NULL},
    {"enforce", "free_floor", T_SIZE, FIELD(enforce.free_floor), NULL},
    {"enforce", "zone_resize_every", T_DURATION, FIELD(enforce.zone_resize_every_ms), NULL},
    {"enforce", "audit_log", T_OPT_PATH, FIELD(enforce.audit_log), NULL},
    {"enforce", "zone_cmdline_dropin", T_PATH, FIELD(enforce.zone_cmdline_dropin), NULL},
    {"enforce", "compact_after_shatter", T_ENUM, FIELD(enforce.compact_after_shatter),
     yes_no_values},
    {"enforce", "stock_restrict", T_ENUM, FIELD(enforce.stock_restrict), yes_no_values},
    {"enforce", "stock_restrict_percent", T_PERCENT, FIELD(enforce.stock_restrict_percent), NULL},
    {"enforce", "stock_restrict_for", T_DURATION, FIELD(enforce.stock_restrict_for_ms), NULL},
    {"enforce", "stock_restrict_state", T_PATH, FIELD(enforce.stock_restrict_state), NULL},
    {"history", "path", T_OPT_PATH, FIELD(history_path), NULL},
    {"history", "every", T_COUNT, FIELD(history_every), RANGE(1, 1000000)},
    {"history", "retention", T_DURATION, FIELD(history_retention_ms),
     RANGE(60 * SEC_MS, 3660 * DAY_MS)},
    {"history", "max_size", T_SIZE, FIELD(history_max_bytes), NULL},
    {"metrics", "textfile", T_OPT_PATH, FIELD(metrics_textfile), NULL},
    {"enforce", "compact_interval", T_DURATION, FIELD(enforce.compact_interval_ms), NULL},
    {"enforce", "benefit_after", T_DURATION, FIELD(enforce.benefit_after_ms), NULL},
    KPATH("pressure_memory", pressure_memory),
    {"pressure", "hold", T_DURATION, FIELD(pressure.hold_ms), NULL},
    {"pressure", "wanting_fallbacks", T_COUNT, FIELD(pressure.wanting_fallbacks), NULL},
    {"pressure", "reward_free_blocks", T_U64, FIELD(pressure.reward_free_blocks), NULL},
    {"pressure", "wanting_psi", T_U64, FIELD(pressure.wanting_psi), NULL},
#define X(id, name, ...)                                                                           \
	{"pressure", name "_some", T_U64, FIELD(pressure.some[PIN_##id]), NULL},                   \
	    {"pressure", name "_full", T_U64, FIELD(pressure.full[PIN_##id]), NULL},
    TAOD_PRESSURE_INPUTS(X)
#undef X
};

#define COPY(dst, src) snprintf((dst), sizeof(dst), "%s", (src))
#define SUN_PATH_MAX   (sizeof(((struct sockaddr_un *)0)->sun_path) - 1)

void config_defaults(struct taod_config *c)
{
	struct kernel_paths *k = &c->k;

	memset(c, 0, sizeof(*c));
	c->tick_ms = 1000;
	COPY(c->root, "/");
	c->log_level = LOG_INFO;
	COPY(c->socket_path, TAOD_DEFAULT_SOCKET);
	c->socket_mode = 0660; /* root and [control] group: privacy by default */
	COPY(c->group, "taod");
	c->readers = READERS_ALL;
	c->reply_memory = 64ULL << 20;
	c->tao = TAO_AUTO;
	c->attach = ATTACH_AUTO;
	c->unmap_pair_window_ms = 1;
	c->cgroup_map_entries = 16384; /* TAOD_MAX_CGROUPS, the maps' size in the BPF object */
	c->sample_keep = 3600;
	act_settings_defaults(&c->enforce);
	pressure_settings_defaults(&c->pressure);
	policy_builtin_default(&c->policies.v[0]);
	c->policies.n = 1;
	COPY(c->history_path, TAOD_DEFAULT_HISTORY);
	c->history_every = 10;
	c->history_retention_ms = 7ULL * 24 * 3600 * 1000;
	c->history_max_bytes = 256ULL << 20;
	COPY(k->btf, "/sys/kernel/btf/vmlinux");
	COPY(k->cgroup_root, "auto");
	COPY(k->mounts, "/proc/self/mounts");
	COPY(k->zoneinfo, "/proc/zoneinfo");
	COPY(k->buddyinfo, "/proc/buddyinfo");
	COPY(k->vmstat, "/proc/vmstat");
	COPY(k->pressure_memory, "/proc/pressure/memory");
	COPY(k->cmdline, "/proc/cmdline");
	COPY(k->thp_sysfs, "/sys/kernel/mm/transparent_hugepage");
	COPY(k->memory_blocks, "/sys/devices/system/memory");
	COPY(k->split_huge_pages, "/sys/kernel/debug/split_huge_pages");
	COPY(k->compact_memory, "/proc/sys/vm/compact_memory");
	COPY(k->percpu_pagelist_high_fraction, "/proc/sys/vm/percpu_pagelist_high_fraction");
	COPY(k->tracefs, "/sys/kernel/tracing");
	COPY(k->debugfs, "/sys/kernel/debug");
	COPY(k->memstat_v2_anon, "anon");
	COPY(k->memstat_v2_thp, "anon_thp");
	COPY(k->memstat_v1_anon, "total_rss");
	COPY(k->memstat_v1_thp, "total_rss_huge");
	COPY(k->memcg_thp_shatter, "memory.thp_shatter");
	COPY(k->memcg_thp_zones, "memory.thp_zones");
	COPY(k->zone_nosplit, "NoSplit");
	COPY(k->zone_nomerge, "NoMerge");
	COPY(k->state_online_nosplit, "online_nosplit");
	COPY(k->state_online_nomerge, "online_nomerge");
	COPY(k->state_online_movable, "online_movable");
	COPY(k->state_offline, "offline");
}

static int set_enum(const struct setting *s, void *dst, const char *v)
{
	for (const struct enum_value *e = s->values; e->name; e++) {
		if (!strcasecmp(e->name, v)) {
			*(int *)dst = e->value;
			return 0;
		}
	}
	return -EINVAL;
}

static void enum_choices(const struct enum_value *e, char *buf, size_t len)
{
	size_t off = 0;

	buf[0] = '\0';
	for (; e->name && off < len; e++)
		off += snprintf(buf + off, len - off, "%s%s", off ? ", " : "", e->name);
}

/* Each word a glob; '=' before one (exact: no subtree) must have a glob after it. */
static bool globs_ok(const char *v)
{
	for (const char *w = v + strspn(v, " \t,"); *w; w += strspn(w, " \t,")) {
		size_t n = strcspn(w, " \t,");

		if (w[0] == '=' && (n == 1 || w[1] == '='))
			return false;
		w += n;
	}
	return true;
}

static int copy_value(const struct setting *s, void *dst, const char *v)
{
	if (strlen(v) >= s->size)
		return -ENAMETOOLONG;
	memcpy(dst, v, strlen(v) + 1);
	return 0;
}

/* A number within the setting's range; @dst is left alone otherwise. */
static int parse_number(const struct setting *s, const char *v,
			int (*parse)(const char *, uint64_t *), void *dst)
{
	uint64_t n, lo, hi;
	int r = parse(v, &n);

	setting_range(s, &lo, &hi);
	if (!r)
		r = check_range(n, lo, hi);
	if (!r)
		*(uint64_t *)dst = n;
	return r;
}

static int set_value(const struct setting *s, void *dst, const char *v)
{
	unsigned mode;

	switch (s->type) {
	case T_DURATION:
		return parse_number(s, v, parse_duration_ms, dst);
	case T_U64:
	case T_PERCENT:
	case T_COUNT:
		return parse_number(s, v, parse_u64, dst);
	case T_SIZE:
		return parse_number(s, v, parse_size_bytes, dst);
	case T_MODE:
		if (parse_mode(v, &mode))
			return -EINVAL;
		*(unsigned *)dst = mode;
		return 0;
	case T_SOCKET:
		if (v[0] != '/')
			return -EINVAL;
		return strlen(v) > SUN_PATH_MAX ? -ENAMETOOLONG : copy_value(s, dst, v);
	case T_OPT_PATH:
		if (!*v) {
			*(char *)dst = '\0'; /* empty: the feature is off */
			return 0;
		}
		if (v[0] != '/')
			return -EINVAL;
		/* fallthrough */
	case T_PATH:
		if (v[0] != '/' && strcmp(v, "auto"))
			return -EINVAL;
		/* fallthrough */
	case T_NAME:
		if (!*v)
			return -EINVAL;
		/* fallthrough */
	case T_GLOBS:
		if (s->type == T_GLOBS && !globs_ok(v))
			return -EINVAL;
		/* fallthrough */
	case T_LIST:
		return copy_value(s, dst, v);
	case T_ENUM:
		return set_enum(s, dst, v);
	}
	return -EINVAL;
}

/* "from 10ms to 10m", in the key's own syntax. */
static const char *range_text(const struct setting *s, char *buf, size_t len, const char *what)
{
	char lo_text[32], hi_text[32];
	uint64_t lo, hi;

	setting_range(s, &lo, &hi);
	if (s->type == T_DURATION) {
		format_duration_ms(lo_text, sizeof(lo_text), lo);
		format_duration_ms(hi_text, sizeof(hi_text), hi);
	} else if (s->type == T_SIZE) {
		format_size_bytes(lo_text, sizeof(lo_text), lo);
		format_size_bytes(hi_text, sizeof(hi_text), hi);
	} else {
		snprintf(lo_text, sizeof(lo_text), "%llu", (unsigned long long)lo);
		snprintf(hi_text, sizeof(hi_text), "%llu", (unsigned long long)hi);
	}
	snprintf(buf, len, "%s from %s to %s", what, lo_text, hi_text);
	return buf;
}

static const char *expected(const struct setting *s, char *buf, size_t len)
{
	switch (s->type) {
	case T_DURATION:
		return range_text(s, buf, len, "a duration (500ms, 1s, 5m, 2h, 7d)");
	case T_U64:
	case T_COUNT:
		return range_text(s, buf, len, "a whole number");
	case T_PERCENT:
		return range_text(s, buf, len, "a whole percentage");
	case T_SIZE:
		return range_text(s, buf, len, "a size (4096, 64K, 64M, 2G)");
	case T_OPT_PATH:
		return "an absolute path, or nothing to turn it off";
	case T_MODE:
		return "an octal mode such as 0660";
	case T_PATH:
		return "an absolute path";
	case T_SOCKET:
		return "an absolute path of at most 107 bytes (a Unix socket address holds no "
		       "more)";
	case T_NAME:
		return "a non-empty name";
	case T_LIST:
		return "space-separated words no longer than the field, or nothing";
	case T_GLOBS:
		return "cgroup globs, each protecting a subtree or, as \"=GLOB\", one cgroup "
		       "alone (e.g. =/app.slice/db.service), or nothing";
	case T_ENUM:
		enum_choices(s->values, buf, len);
		return buf;
	}
	return "?";
}

static bool section_known(const char *section)
{
	for (size_t i = 0; i < sizeof(settings) / sizeof(settings[0]); i++)
		if (!strcmp(settings[i].section, section))
			return true;
	return false;
}

static const struct setting *find_setting(const char *section, const char *key)
{
	for (size_t i = 0; i < sizeof(settings) / sizeof(settings[0]); i++)
		if (!strcmp(settings[i].section, section) && !strcmp(settings[i].key, key))
			return &settings[i];
	return NULL;
}

bool config_keep_setting(struct taod_config *to, const struct taod_config *from,
			 const char *section, const char *key)
{
	const struct setting *s = find_setting(section, key);
	char *dst;
	const char *src;
	bool differ;

	if (!s)
		return false;
	dst = (char *)to + s->offset;
	src = (const char *)from + s->offset;
	/* Text: bytes past the NUL may be left by an overridden longer value. */
	if (s->type == T_PATH || s->type == T_OPT_PATH || s->type == T_NAME || s->type == T_SOCKET)
		differ = strncmp(dst, src, s->size) != 0;
	else
		differ = memcmp(dst, src, s->size) != 0;
	memcpy(dst, src, s->size);
	return differ;
}

/* " (did you mean tick?)", " (it is a [daemon] key)", or "" for @key in [@section]. */
static const char *key_hint(const char *section, const char *key, char *buf, size_t len)
{
	const struct setting *elsewhere = NULL;
	struct near_word n;

	near_word_init(&n, key);
	for (size_t i = 0; i < sizeof(settings) / sizeof(settings[0]); i++) {
		if (!strcmp(settings[i].section, section))
			near_word_offer(&n, settings[i].key);
		else if (!strcmp(settings[i].key, key))
			elsewhere = &settings[i];
	}
	if (elsewhere)
		snprintf(buf, len, " (it is a [%s] key)", elsewhere->section);
	else if (near_word_best(&n))
		snprintf(buf, len, " (did you mean %s?)", near_word_best(&n));
	else
		buf[0] = '\0';
	return buf;
}

/* An unknown section, at the line that opens it: its keys are not named again. */
static void check_section(struct config_parse *p, const char *section)
{
	const char *space = strpbrk(section, " \t");
	char head[64];
	struct near_word n;

	if (section_known(section) || config_is_policy_section(section))
		return;
	near_word_init(&n, section);
	if (space) { /* "[polcy web]": the word before the name */
		snprintf(head, sizeof(head), "%.*s", (int)(space - section), section);
		near_word_init(&n, head);
		near_word_offer(&n, "policy");
	}
	for (size_t i = 0; !space && i < sizeof(settings) / sizeof(settings[0]); i++)
		near_word_offer(&n, settings[i].section);
	if (!near_word_best(&n))
		config_error_add(p, "unknown section [%s]", section);
	else
		config_error_add(p, "unknown section [%s] (did you mean [%s%s]?)", section,
				 near_word_best(&n), space ? space : "");
}

static int apply_setting(struct config_parse *p, const char *section, const char *key,
			 const char *value)
{
	char choices[160];

	for (size_t i = 0; i < sizeof(settings) / sizeof(settings[0]); i++) {
		const struct setting *s = &settings[i];

		if (strcmp(s->section, section) || strcmp(s->key, key))
			continue;
		if (set_value(s, (char *)p->cfg + s->offset, value))
			config_error_add(p, "[%s] %s = \"%s\": expected %s", section, key, value,
					 expected(s, choices, sizeof(choices)));
		return 1;
	}
	if (section_known(section)) /* an unknown one was named at its own line */
		config_error_add(p, "[%s] unknown key \"%s\"%s", section, key,
				 key_hint(section, key, choices, sizeof(choices)));
	return 1;
}

static int on_ini_entry(void *user, const char *section, const char *key, const char *value)
{
	struct config_parse *p = user;

	p->entries_on_line++;
	if (*section)
		config_seen_add(p, section, key);
	if (!*section) {
		config_error_add(p, "\"%s\" outside of any section", key);
		return 1;
	}
	if (config_is_policy_section(section))
		return config_policy_entry(p, section, key, value);
	return apply_setting(p, section, key, value);
}

static char *trim(char *s)
{
	char *e = s + strlen(s);

	while (isspace((unsigned char)*s))
		s++;
	while (e > s && isspace((unsigned char)e[-1]))
		*--e = '\0';
	return s;
}

/*
 * Cuts an inline comment: ';' or '#' after whitespace, as inih does. @s
 * may be empty (a line ending in '='): the scan starts at @s, not after it.
 */
static void cut_inline_comment(char *s)
{
	for (char *c = s; *c; c++)
		if ((*c == ';' || *c == '#') && c > s && isspace((unsigned char)c[-1])) {
			*c = '\0';
			return;
		}
}

/*
 * inih reads into a fixed buffer and would split a longer line in two, so
 * a long "key = value" line is parsed here with the same rules and handed
 * to the handler directly; anything else that long is an error.
 */
static void long_line(struct config_parse *p, char *raw)
{
	char *s = trim(raw), *eq;

	if (!*s || *s == ';' || *s == '#')
		return;
	eq = strpbrk(s, "=:");
	if (*s == '[' || !eq) {
		config_error_add(p, "line is %zu bytes long and not a key = value line",
				 strlen(raw));
		return;
	}
	*eq = '\0';
	cut_inline_comment(eq + 1);
	on_ini_entry(p, p->section, trim(s), trim(eq + 1));
}

/* Remembers the section a line opens, for long_line(). */
static void track_section(struct config_parse *p, const char *line)
{
	const char *s = line + strspn(line, " \t");
	const char *end = *s == '[' ? strchr(s, ']') : NULL;

	if (!end)
		return;
	snprintf(p->section, sizeof(p->section), "%.*s", (int)(end - s - 1), s + 1);
	config_seen_add(p, p->section, NULL);
	check_section(p, p->section);
}

/* Counts lines for the handler: inih calls it right after each read. */
static char *read_counted_line(char *str, int num, void *stream)
{
	struct config_parse *p = stream;
	ssize_t n = getline(&p->raw, &p->raw_cap, p->fp);

	if (n < 0)
		return NULL;
	p->bytes += (size_t)n;
	if (p->bytes > CONFIG_MAX_BYTES) { /* grew after it was opened */
		config_error_add(p, "more than %d bytes: a configuration file may hold no more",
				 CONFIG_MAX_BYTES);
		return NULL;
	}
	p->line++;
	p->entries_on_line = 0;
	if (memchr(p->raw, '\0', (size_t)n)) {
		config_error_add(p, "a NUL byte at column %zu: a configuration file is text",
				 strlen(p->raw) + 1);
		snprintf(str, (size_t)num, "\n"); /* the rest of the line is not read */
		return str;
	}
	if (n >= num) {
		long_line(p, p->raw);
		snprintf(str, (size_t)num, "\n"); /* inih sees an empty line */
		return str;
	}
	track_section(p, p->raw);
	memcpy(str, p->raw, (size_t)n + 1);
	return str;
}

/* This file's errors, from @from on, in line order (stable: few of them). */
static void sort_by_line(struct config_errors *errs, int from)
{
	struct config_error e;

	for (int i = from + 1; i < errs->count; i++) {
		int j = i;

		e = errs->items[i];
		for (; j > from && errs->items[j - 1].line > e.line; j--)
			errs->items[j] = errs->items[j - 1];
		errs->items[j] = e;
	}
}

int config_parse_file(struct config_parse *p, const char *path)
{
	int first_bad, from = p->errs->count;

	COPY(p->file, path);
	p->line = 0;
	p->section[0] = '\0';
	p->bytes = 0;
	p->fp = config_open(p, path);
	if (!p->fp)
		return -1;
	first_bad = ini_parse_stream(read_counted_line, p, on_ini_entry, p);
	config_seen_check(p);
	fclose(p->fp);
	p->fp = NULL;
	free(p->raw);
	p->raw = NULL;
	p->raw_cap = 0;
	if (first_bad > 0) {
		/* inih's own syntax errors (no '=', unclosed '[') carry no text. */
		bool already = false;

		for (int i = 0; i < p->errs->count; i++)
			already |= p->errs->items[i].line == first_bad &&
				   !strcmp(p->errs->items[i].file, path);
		if (!already) {
			p->line = first_bad;
			config_error_add(p, "syntax error: expected [section] or key = value");
		}
	}
	sort_by_line(p->errs, from);
	return 0;
}

static int conf_name_filter(const struct dirent *d)
{
	size_t n = strlen(d->d_name);

	return d->d_name[0] != '.' && n > 5 && !strcmp(d->d_name + n - 5, ".conf");
}

static void parse_dropins(struct config_parse *p, const char *dir)
{
	struct dirent **names;
	int n = scandir(dir, &names, conf_name_filter, alphasort);

	if (n < 0) {
		if (errno != ENOENT) {
			COPY(p->file, dir);
			p->line = 0;
			config_error_add(p, "cannot read drop-in directory: %s", strerror(errno));
		}
		return;
	}
	for (int i = 0; i < n; i++) {
		char path[PATH_MAX];

		snprintf(path, sizeof(path), "%s/%s", dir, names[i]->d_name);
		config_parse_file(p, path);
		free(names[i]);
	}
	free(names);
}

int config_load(struct taod_config *cfg, const char *path, const char *dropin_dir,
		struct config_errors *errs)
{
	assert(cfg);
	assert(path);
	assert(errs);

	struct config_parse p = {.cfg = cfg, .errs = errs};

	memset(errs, 0, sizeof(*errs));
	config_defaults(cfg);
	COPY(cfg->path, path);
	config_parse_file(&p, path);
	if (dropin_dir)
		parse_dropins(&p, dropin_dir);
	config_policies_finish(&p);
	return errs->total;
}

const char *tao_detect_name(enum tao_detect t)
{
	return t == TAO_YES ? "yes" : t == TAO_NO ? "no" : "auto";
}

const char *attach_mode_name(enum attach_mode a)
{
	static const char *const names[] = {[ATTACH_AUTO] = "auto",
					    [ATTACH_FENTRY] = "fentry",
					    [ATTACH_TRACEPOINT] = "tracepoint",
					    [ATTACH_MEMCG] = "memcg"};

	return names[a];
}
