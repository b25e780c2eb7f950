/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Logging. Under systemd (JOURNAL_STREAM set) every message goes to the
 * journal natively, with structured fields where the caller has them, so
 * `journalctl -u taod TAOD_ACTION=shatter` finds the shatters; the stream
 * with "<N>" priority prefixes is the fallback when that send fails. In the
 * foreground each stderr line starts with its local time.
 */
#ifndef TAOD_LOG_H
#define TAOD_LOG_H

#include <stdint.h>
#include <syslog.h>

/* Message kinds: their journal MESSAGE_ID (fixed for ever once shipped). */
#define LOG_MESSAGE_IDS(X)                                                                         \
	X(LOG_MSG_ACTION, "6cf2f084c9f545d1adc841e77bf10482")  /* an audited action */             \
	X(LOG_MSG_BENEFIT, "c0ff1d8512704946b586df229b010993") /* an action's benefit */           \
	X(LOG_MSG_CLASS, "96afe8b34e6e4a35947e3bd4b3c15ccb")   /* a tenant's class moved */        \
	X(LOG_MSG_REPEAT, "def779fd721645f79ea02b72d02a9102")  /* a warning said once */

enum log_message_id {
	LOG_MSG_NONE,
#define LOG_MSG_ENUM(name, id) name,
	LOG_MESSAGE_IDS(LOG_MSG_ENUM)
#undef LOG_MSG_ENUM
	    LOG_MSG_MAX,
};

/* The journal fields of one message; NULL or "" leaves a field out. */
struct log_fields {
	enum log_message_id id;
	const char *cgroup, *action, *result, *policy; /* TAOD_CGROUP, ... */
};

/* Warnings a tick could repeat for ever: said once, counted after. */
#define LOG_REPEATS(X)                                                                             \
	X(LOG_REPEAT_DEBUGFS_FALLBACK, "debugfs_split_refused") /* MADV_PAGEOUT */                 \
	X(LOG_REPEAT_DEBUGFS_MOUNT, "debugfs_mount_failed")                                        \
	X(LOG_REPEAT_MTHP_SPLIT, "mthp_split_refused")

enum log_repeat {
#define LOG_REPEAT_ENUM(name, key) name,
	LOG_REPEATS(LOG_REPEAT_ENUM)
#undef LOG_REPEAT_ENUM
	    LOG_REPEAT_MAX,
};

void log_init(const char *ident);
void log_set_max_level(int level);
void log_msg(int level, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* log_msg with the journal fields @f. */
void log_struct(int level, const struct log_fields *f, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/*
 * A warning of kind @r: logged the first time, with a note that repeats
 * are counted; later ones only counted (log_repeat_count, `taoctl status`).
 */
void log_repeated(enum log_repeat r, int level, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
uint64_t log_repeat_count(enum log_repeat r);
/* The status key of @r ("debugfs_split_refused"). */
const char *log_repeat_key(enum log_repeat r);

#define log_debug(...)	log_msg(LOG_DEBUG, __VA_ARGS__)
#define log_info(...)	log_msg(LOG_INFO, __VA_ARGS__)
#define log_notice(...) log_msg(LOG_NOTICE, __VA_ARGS__)
#define log_warn(...)	log_msg(LOG_WARNING, __VA_ARGS__)
#define log_err(...)	log_msg(LOG_ERR, __VA_ARGS__)

/*
 * For results that must not be dropped silently: logs "@what: <errno>" at
 * @level when @r is a negative errno, and returns @r either way.
 */
int log_errno(int level, int r, const char *what);

#endif
