/* SPDX-License-Identifier: GPL-2.0 */
/* Helpers for the libFuzzer targets: inputs as C strings and as files. */
#ifndef TAOD_FUZZ_INPUT_H
#define TAOD_FUZZ_INPUT_H

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* @data as a NUL-terminated string (the kernel files taod reads are text). */
static inline char *fuzz_cstr(const uint8_t *data, size_t size)
{
	char *s = malloc(size + 1);

	if (s) {
		memcpy(s, data, size);
		s[size] = '\0';
	}
	return s;
}

/* Writes @data to a file in /dev/shm (or /tmp); its path in @path (64 bytes). */
int fuzz_file(const uint8_t *data, size_t size, char path[64]);

#endif
