// SPDX-License-Identifier: GPL-2.0
/*
 * A sampled split stack as JSON: each frame's build-id and file offset, or
 * its IP, and the file of the task's mappings it is in. Symbols are left to
 * the reader (taoctl), which opens the files with its own rights.
 */
#include "split_stack.h"

#include <inttypes.h>
#include <json-c/json.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>

#include "common/elf_file.h"
#include "common/json_fields.h"
#include "file_lookups.h"
#include "observe/split_cause.h"

struct maps_line {
	uint64_t start, end, pgoff;
	char path[PATH_MAX];
};

/* Parses the line at *@p and moves past it; false at the end. */
static bool maps_next(const char **p, struct maps_line *m)
{
	const char *nl;
	int used = 0;

	while (**p) {
		char line[PATH_MAX + 128];
		size_t len;

		nl = strchr(*p, '\n');
		len = nl ? (size_t)(nl - *p) : strlen(*p);
		snprintf(line, sizeof(line), "%.*s", (int)len, *p);
		*p += len + (nl ? 1 : 0);
		m->path[0] = '\0';
		if (sscanf(line, "%" SCNx64 "-%" SCNx64 " %*s %" SCNx64 " %*s %*s %n", &m->start,
			   &m->end, &m->pgoff, &used) == 3 &&
		    line[used] == '/') {
			snprintf(m->path, sizeof(m->path), "%s", line + used);
			return true;
		}
	}
	return false;
}

/* The file and file offset of user address @ip, from @maps. */
static bool file_of_ip(const char *maps, uint64_t ip, char *path, size_t len, uint64_t *off)
{
	struct maps_line m;

	while (maps_next(&maps, &m))
		if (ip >= m.start && ip < m.end) {
			snprintf(path, len, "%s", m.path);
			*off = ip - m.start + m.pgoff;
			return true;
		}
	return false;
}

/* A deleted file's name is not its file: whatever now has that name
 * (a tenant's FIFO, say) is not looked at. */
static bool deleted(const char *path)
{
	static const char mark[] = " (deleted)";
	size_t n = strlen(path);

	return n >= sizeof(mark) - 1 && !strcmp(path + n - (sizeof(mark) - 1), mark);
}

/* The mapped file with build-id @id (under @root), into @path. */
static bool file_of_build_id(const char *maps, const char *root, const unsigned char *id,
			     struct file_lookups *l, char *path, size_t len)
{
	unsigned char have[ELF_BUILD_ID_MAX];
	struct maps_line m;

	while (maps_next(&maps, &m)) {
		if (deleted(m.path))
			continue;
		if (file_lookups_build_id(l, root, m.path, have) == ELF_BUILD_ID_MAX &&
		    !memcmp(have, id, ELF_BUILD_ID_MAX)) {
			snprintf(path, len, "%s", m.path);
			return true;
		}
		if (l->stopped)
			return false;
	}
	return false;
}

/*
 * Whether frame @f can be a user frame: its file offset or IP below 2^56
 * (the top of user space with 5-level page tables). A kernel address in a
 * user stack sample (seen: 0xffffa9af7004c000 as a file offset) is no
 * frame of the task's code; shown, it read "reqchurn+0x7fffffffffffffff".
 */
static bool user_frame(const struct bpf_stack_build_id *f)
{
	uint64_t v = f->status == BPF_STACK_BUILD_ID_VALID ? f->offset : f->ip;

	return v >> 56 == 0;
}

static struct json_object *frame_json(const struct bpf_stack_build_id *f, const char *maps,
				      const char *root, struct file_lookups *l)
{
	struct json_object *o = json_object_new_object();
	char path[PATH_MAX], hex[2 * ELF_BUILD_ID_MAX + 1];
	uint64_t off = 0;
	bool found = false;

	if (f->status == BPF_STACK_BUILD_ID_VALID) {
		for (int i = 0; i < ELF_BUILD_ID_MAX; i++)
			snprintf(hex + 2 * i, 3, "%02x", f->build_id[i]);
		json_add_str(o, "build_id", hex);
		off = f->offset;
		found = maps && file_of_build_id(maps, root, f->build_id, l, path, sizeof(path));
		json_add_u64(o, "offset", off);
	} else {
		json_add_u64(o, "ip", f->ip);
		found = maps && file_of_ip(maps, f->ip, path, sizeof(path), &off);
		if (found)
			json_add_u64(o, "offset", off);
	}
	json_add_str_or_null(o, "file", found ? path : NULL);
	return o;
}

struct json_object *split_stack_json(const struct taod_split_stack *s, const char *maps,
				     const char *root, struct file_lookups *l)
{
	struct json_object *o = json_object_new_object(), *frames = json_object_new_array();

	json_add_u64(o, "samples", s->samples);
	json_add_str(o, "cause", split_cause_name((int)s->cause));
	for (unsigned i = 0; i < s->nframes && i < TAOD_STACK_FRAMES; i++)
		if (s->frames[i].status != BPF_STACK_BUILD_ID_EMPTY && user_frame(&s->frames[i]))
			json_object_array_add(frames, frame_json(&s->frames[i], maps, root, l));
	json_add(o, "frames", frames);
	return o;
}
