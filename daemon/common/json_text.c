// SPDX-License-Identifier: GPL-2.0
#include "json_fields.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "utf8.h"

char *json_to_text(struct json_object *o, int flags)
{
	return utf8_sanitize_dup(json_object_to_json_string_ext(o, flags));
}

struct json_object *json_new_double(double v)
{
	char text[40];

	if (!isfinite(v))
		return NULL;
	/* The shortest of 15, 16, 17 digits that reads back as @v: exact, and short. */
	for (int digits = 15; digits <= 17; digits++) {
		snprintf(text, sizeof(text), "%.*g", digits, v);
		if (strtod(text, NULL) == v)
			break;
	}
	if (strspn(text, "-0123456789") == strlen(text))
		strcat(text, ".0"); /* stays a double for clients that care */
	return json_object_new_double_s(v, text);
}
