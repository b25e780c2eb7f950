// SPDX-License-Identifier: GPL-2.0
#include "taod/json_fields.h"
#include "taod/utf8.h"

char *json_to_text(struct json_object *o, int flags)
{
	return utf8_sanitize_dup(json_object_to_json_string_ext(o, flags));
}
