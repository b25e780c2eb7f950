// SPDX-License-Identifier: GPL-2.0
/* The action kinds' table (action_kinds.h), and lookups by kind and by word. */
#include <stdio.h>
#include <string.h>

#include "action_kinds.h"

static const struct action_kind_row rows[ACTION_KIND_MAX] = {
#define X(kind, word, rung, bytes, machine, task, off_loop, what)                                  \
	[ACTION_##kind] = {word, rung, bytes, machine, task, off_loop, what},
    TAOD_ACTION_KINDS(X)
#undef X
};

const struct action_kind_row *action_kind_row(enum action_kind k)
{
	return (unsigned)k < ACTION_KIND_MAX ? &rows[k] : NULL;
}

const char *action_kind_name(enum action_kind k)
{
	return (unsigned)k < ACTION_KIND_MAX ? rows[k].name : "?";
}

int action_kind_by_name(const char *name)
{
	for (int k = 0; k < ACTION_KIND_MAX; k++)
		if (!strcmp(name, rows[k].name))
			return k;
	return -1;
}

void action_kind_words(char *buf, size_t len)
{
	size_t off = 0;

	buf[0] = '\0';
	for (int k = 0; k < ACTION_KIND_MAX && off < len; k++)
		off += snprintf(buf + off, len - off, "%s%s", k ? ", " : "", rows[k].name);
}
