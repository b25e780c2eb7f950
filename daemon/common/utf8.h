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
#include <stdio.h>

/* Bytes in the well-formed UTF-8 sequence at @s (1-4), 0 if ill-formed or NUL. */
size_t utf8_sequence_len(const char *s);

/* A malloc'd copy of @s with each ill-formed byte replaced by U+FFFD; NULL on ENOMEM. */
char *utf8_sanitize_dup(const char *s);

/*
 * For one log line or a terminal: @in with control characters (C0, DEL and
 * the C1 range U+0080..U+009F, byte by byte) and ill-formed bytes as
 * \xNN and, with @quotes, '"' and '\\' backslash-escaped (a value inside
 * quotes); truncated to fit @len.
 */
void text_escape(const char *in, char *out, size_t len, bool quotes);

/* The same, whole: a malloc'd copy big enough for any @in; NULL on ENOMEM. */
char *text_escape_dup(const char *in, bool quotes);

/*
 * The one way text from a name, a comm or a path reaches a terminal:
 * text_escape (no quotes) written to @f. NULL prints nothing. fputs's result.
 */
int text_fputs(const char *in, FILE *f);

#endif
