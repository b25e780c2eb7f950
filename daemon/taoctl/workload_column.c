// SPDX-License-Identifier: GPL-2.0
#include <json-c/json.h>
#include <stdio.h>

#include "format.h"
#include "common/workload_name.h"
#include "workload_column.h"

static void field(char *dst, struct json_object *row, const char *key)
{
	/* Not jget_str: that gives "-" for null, and null means none here. */
	const char *v = json_object_get_string(jget(row, key));

	snprintf(dst, WORKLOAD_FIELD_MAX, "%s", v ? v : "");
}

const char *workload_column(struct json_object *row, char *buf, size_t len)
{
	struct workload_name w;

	field(w.unit, row, "unit");
	field(w.container, row, "container");
	field(w.pod, row, "pod");
	workload_name_label(&w, buf, len);
	if (len > 1 && !buf[0])
		snprintf(buf, len, "-");
	return buf;
}
