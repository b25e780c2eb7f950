// SPDX-License-Identifier: GPL-2.0
/* A request's bounded file lookups (file_lookups.h). */
#include "file_lookups.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/clock.h"
#include "common/offload.h"

struct file_lookup {
	char key[PATH_MAX * 2]; /* root and path: tasks may see different files */
	unsigned char id[ELF_BUILD_ID_MAX];
	size_t n;
};

void file_lookups_init(struct file_lookups *l)
{
	uint64_t ms = offload_in_child() ? FILE_LOOKUPS_CHILD_MS : FILE_LOOKUPS_MS;

	*l = (struct file_lookups){.deadline_us = monotonic_us() + ms * 1000};
}

void file_lookups_free(struct file_lookups *l)
{
	free(l->v);
	l->v = NULL;
	l->n = 0;
}

bool file_lookups_time_left(struct file_lookups *l)
{
	if (!l->stopped && monotonic_us() >= l->deadline_us)
		l->stopped = "time";
	return !l->stopped;
}

static const struct file_lookup *cached(const struct file_lookups *l, const char *key)
{
	for (size_t i = 0; i < l->n; i++)
		if (!strcmp(l->v[i].key, key))
			return &l->v[i];
	return NULL;
}

/* Whether one more file may be opened; false also records why not. */
static bool may_open(struct file_lookups *l)
{
	if (l->opened >= FILE_LOOKUPS_FILES && !l->stopped)
		l->stopped = "files";
	return file_lookups_time_left(l);
}

int file_lookups_imports(struct file_lookups *l, const char *root, const char *path,
			 const char *names)
{
	if (!may_open(l))
		return -1;
	l->opened++;
	return elf_imports_any(root, path, names);
}

int file_lookups_symbol(struct file_lookups *l, const char *root, const char *path, uint64_t off,
			char *out, size_t len)
{
	char *plus;

	if (!may_open(l))
		return FILE_LOOKUPS_SPENT;
	l->opened++;
	if (elf_symbolize(root, path, off, out, len))
		return -1;
	if ((plus = strrchr(out, '+')))
		*plus = '\0';
	return 0;
}

size_t file_lookups_build_id(struct file_lookups *l, const char *root, const char *path,
			     unsigned char id[ELF_BUILD_ID_MAX])
{
	char key[PATH_MAX * 2];
	const struct file_lookup *c;
	struct file_lookup *e;

	snprintf(key, sizeof(key), "%s\n%s", root, path);
	if ((c = cached(l, key))) {
		memcpy(id, c->id, c->n);
		return c->n;
	}
	if (!may_open(l))
		return 0;
	if (!l->v && !(l->v = calloc(FILE_LOOKUPS_FILES, sizeof(*l->v))))
		return 0;
	e = &l->v[l->n++];
	l->opened++;
	snprintf(e->key, sizeof(e->key), "%s", key);
	e->n = elf_build_id(root, path, e->id);
	memcpy(id, e->id, e->n);
	return e->n;
}
