/* SPDX-License-Identifier: GPL-2.0 */
/* Parsers for the value syntaxes used in taod.conf and kernel files. */
#ifndef TAOD_PARSE_H
#define TAOD_PARSE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* "250ms", "1s", "5m", "2h", "7d"; a bare number is seconds. */
int parse_duration_ms(const char *s, uint64_t *out_ms);
/* "4096", "64K", "2M", "1G", "1T" (binary multiples). */
int parse_size_bytes(const char *s, uint64_t *out);
int parse_bool(const char *s, bool *out);
/* "85", "85%", "12.5%" into [0, 100]. */
int parse_percent(const char *s, double *out);
int parse_u64(const char *s, uint64_t *out);
/* Octal file mode such as "0660". */
int parse_mode(const char *s, unsigned *out);
/* 0 when @v is within [@lo, @hi], else -ERANGE. */
int check_range(uint64_t v, uint64_t lo, uint64_t hi);
/* @ms in the largest unit that holds it whole, as parse_duration_ms reads
 * it: "10ms", "90s", "10m", "366d". */
void format_duration_ms(char *buf, size_t len, uint64_t ms);
/* @bytes likewise in binary units: "4K", "64M", "1P"; "0". */
void format_size_bytes(char *buf, size_t len, uint64_t bytes);

#endif
