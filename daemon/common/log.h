/* SPDX-License-Identifier: GPL-2.0 */
/* Logging to stderr, with syslog priority prefixes under journald. */
#ifndef TAOD_LOG_H
#define TAOD_LOG_H

#include <syslog.h>

void log_init(const char *ident);
void log_set_max_level(int level);
void log_msg(int level, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

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
