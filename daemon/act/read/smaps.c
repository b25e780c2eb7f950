// SPDX-License-Identifier: GPL-2.0
/*
 * /proc/PID/smaps: one header line per mapping ("start-end perms offset
 * dev inode [path]") followed by "Key: value [kB]" lines. We keep the
 * fields that say where a task's THPs are and which ranges may hold them.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "smaps.h"
#include "act/act_backend.h"
#include "common/offload.h"

static bool parse_header(const char *line, struct vma_info *v)
{
	unsigned long long start, end, inode;
	char perms[8], offset[32], dev[32];
	int n = 0;

	if (sscanf(line, "%llx-%llx %7s %31s %31s %llu %n", &start, &end, perms, offset, dev,
		   &inode, &n) < 6 ||
	    end <= start)
		return false;
	memset(v, 0, sizeof(*v));
	v->start = start;
	v->end = end;
	v->file_backed = inode != 0;
	v->anon_mapping =
	    inode == 0 && (line[n] == '\0' || line[n] == '\n' || !strncmp(line + n, "[heap]", 6) ||
			   !strncmp(line + n, "[stack]", 7));
	return true;
}

static void parse_field(const char *line, struct vma_info *v)
{
	unsigned long long val;
	char key[64];

	if (!strncmp(line, "VmFlags:", 8)) {
		v->no_hugepage = strstr(line + 8, " nh") != NULL;
		return;
	}
	if (sscanf(line, "%63[^:]: %llu", key, &val) != 2)
		return;
	if (!strcmp(key, "Rss"))
		v->rss = val << 10;
	else if (!strcmp(key, "Anonymous"))
		v->anon = val << 10;
	else if (!strcmp(key, "AnonHugePages"))
		v->anon_huge = val << 10;
}

/* A field line's first word ends with ':'; a header's starts with hex and '-'. */
static bool is_field_line(const char *line)
{
	const char *sp = strchr(line, ' ');

	return sp && sp > line && sp[-1] == ':';
}

int smaps_scan(const char *path, vma_visit_fn fn, void *ctx)
{
	struct vma_info v;
	bool have = false;
	char *line = NULL;
	size_t cap = 0;
	int r = 0;
	FILE *f = fopen(path, "re");

	if (!f)
		return -errno;
	offload_note("reading %.140s", path);
	/* Each read takes the task's mmap lock: its time is checked inside. */
	while (!r && !(r = offload_time_up() ? -ETIME : 0) && getline(&line, &cap, f) > 0) {
		if (is_field_line(line)) {
			if (have)
				parse_field(line, &v);
			continue;
		}
		if (have)
			r = fn(ctx, &v);
		have = parse_header(line, &v);
	}
	if (!r && have)
		r = fn(ctx, &v);
	free(line);
	fclose(f);
	return r;
}

struct vma_vec {
	struct vma_info *v;
	int n, cap;
};

static int append_vma(void *ctx, const struct vma_info *v)
{
	struct vma_vec *vec = ctx;

	if (vec->n == vec->cap) {
		int cap = vec->cap ? 2 * vec->cap : 64;
		struct vma_info *nv = realloc(vec->v, (size_t)cap * sizeof(*nv));

		if (!nv)
			return -ENOMEM;
		vec->v = nv;
		vec->cap = cap;
	}
	vec->v[vec->n++] = *v;
	return 0;
}

int smaps_collect(const char *path, struct vma_info **out)
{
	struct vma_vec vec = {0};
	int r = smaps_scan(path, append_vma, &vec);

	if (r < 0) {
		free(vec.v);
		vec.v = NULL;
	}
	*out = vec.v;
	return r < 0 ? r : vec.n;
}

uint64_t smaps_anon_huge(const struct vma_info *v, int n)
{
	uint64_t sum = 0;

	for (int i = 0; i < n; i++)
		sum += v[i].anon_huge;
	return sum;
}

const char *smaps_read_error(int err)
{
	if (err == ETIME || err == -ETIME)
		return "the action's time ran out inside the read (the task's mmap lock "
		       "contended, or too many mappings)";
	return strerror(err < 0 ? -err : err);
}
