// SPDX-License-Identifier: GPL-2.0
#include "json_errors.h"

#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/json_fields.h"
#include "format.h"

static FILE *real_stderr;
static char *held;
static size_t held_len;

bool json_errors_asked(int argc, char **argv)
{
	for (int i = 1; i < argc; i++)
		if (!strcmp(argv[i], "--json") || !strcmp(argv[i], "-j"))
			return true;
	return false;
}

bool json_errors_hold(void)
{
	FILE *mem = open_memstream(&held, &held_len);

	if (!mem)
		return false;
	real_stderr = stderr;
	stderr = mem; /* glibc's stderr is a variable: every writer follows it */
	return true;
}

/* The held text without taoctl's "taoctl: " prefix and the last newline. */
static const char *message(char *text)
{
	size_t n = strlen(text);

	while (n && text[n - 1] == '\n')
		text[--n] = '\0';
	return strncmp(text, "taoctl: ", 8) ? text : text + 8;
}

int json_errors_finish(bool json, int rc)
{
	struct json_object *o;

	if (!real_stderr)
		return rc;
	fclose(stderr);
	stderr = real_stderr;
	real_stderr = NULL;
	if (held_len)
		fwrite(held, 1, held_len, stderr);
	if (json && rc && held_len) {
		o = json_object_new_object();
		json_add_str(o, "error", message(held));
		json_add_i64(o, "exit", rc);
		print_json(o);
		json_object_put(o);
	}
	free(held);
	held = NULL;
	return rc;
}
