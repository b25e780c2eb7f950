/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Cgroup names and task comms are bytes chosen by whoever made them. What
 * taod writes out (JSON, Prometheus labels, log lines) must stay valid and
 * one record per line whatever those bytes are.
 */
#ifndef TAOD_UTF8_H
#define TAOD_UTF8_H

#include <stdbool.h>
#include <stddef.h>

/* Bytes in the well-formed UTF-8 sequence at @s (1-4), 0 if ill-formed or NUL. */
size_t utf8_sequence_len(const char *s);

/* A malloc'd copy of @s with each ill-formed byte replaced by U+FFFD; NULL on ENOMEM. */
char *utf8_sanitize_dup(const char *s);

/*
 * For one log line: @in with control characters and ill-formed bytes as
 * \xNN and, with @quotes, '"' and '\\' backslash-escaped (a value inside
 * quotes); truncated to fit @len.
 */
void text_escape(const char *in, char *out, size_t len, bool quotes);

/* The same, whole: a malloc'd copy big enough for any @in; NULL on ENOMEM. */
char *text_escape_dup(const char *in, bool quotes);

#endif
