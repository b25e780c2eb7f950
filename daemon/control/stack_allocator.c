// SPDX-License-Identifier: GPL-2.0
/*
 * Frames to allocator: the frames' files come from the split stack; their
 * functions are looked up here, within the request's file budget (the
 * files are the tenant's), since a library's file alone cannot tell
 * glibc's malloc from the program calling libc's munmap wrapper.
 */
#include "stack_allocator.h"

#include <json-c/json.h>

#include "file_lookups.h"
#include "taod/thp_observe.h"

struct named_frames {
	struct allocator_frame f[TAOD_STACK_FRAMES];
	char func[TAOD_STACK_FRAMES][256];
	size_t n;
};

/* Frame @fr's file. */
static void file_of_frame(struct named_frames *nf, struct json_object *fr)
{
	struct json_object *file;
	struct allocator_frame *a = &nf->f[nf->n++];

	*a = (struct allocator_frame){0};
	if (json_object_object_get_ex(fr, "file", &file) &&
	    json_object_is_type(file, json_type_string))
		a->file = json_object_get_string(file);
}

/* Frame @i's function, where a symbol covers its offset. */
static void name_frame(struct named_frames *nf, size_t i, struct json_object *fr, const char *root,
		       struct file_lookups *l)
{
	struct json_object *off;
	struct allocator_frame *a = &nf->f[i];

	if (a->file && json_object_object_get_ex(fr, "offset", &off) &&
	    !file_lookups_symbol(l, root, a->file, (uint64_t)json_object_get_int64(off),
				 nf->func[i], sizeof(nf->func[0])))
		a->func = nf->func[i];
}

/*
 * Whether the frame below libc's innermost frames is a program that
 * imports none of libc's munmap/madvise wrappers: it cannot have called
 * one, so libc's own code did (glibc's malloc). libc keeps no frame
 * pointers, so a stack sampled in madvise called by glibc's heap trim (a
 * per-thread arena's shrink_heap) shows the program's frame next (issue
 * 26 item 5: a glibc server's trims were told "the program itself").
 * Asked from the files alone, before any symbol is looked up: one small
 * file, where a loaded guest's budget ran out on libc's symbols. False
 * when unknown (a static program, the budget spent) or when no libc frame
 * comes first (the program's own system call).
 */
static bool caller_imports_no_wrapper(const struct named_frames *nf, const char *root,
				      struct file_lookups *l)
{
	size_t i = allocator_caller(nf->f, nf->n);

	if (i == 0 || i >= nf->n)
		return false;
	return file_lookups_imports(l, root, nf->f[i].file, allocator_libc_wrappers) == 0;
}

const struct allocator_rule *stack_allocator(struct json_object *stack, pid_t pid, const char *root,
					     struct file_lookups *l)
{
	struct json_object *frames;
	struct named_frames nf = {.n = 0};
	const struct allocator_rule *r;

	if (!stack || !json_object_object_get_ex(stack, "frames", &frames))
		return NULL;
	for (size_t i = 0; i < json_object_array_length(frames) && nf.n < TAOD_STACK_FRAMES; i++)
		file_of_frame(&nf, json_object_array_get_idx(frames, i));
	/* An allocator's library among the files needs no symbol looked up. */
	if ((r = allocator_of_frame_files(nf.f, nf.n)))
		return r;
	if (caller_imports_no_wrapper(&nf, root, l))
		return allocator_detect("", false);
	for (size_t i = 0; i < nf.n; i++)
		name_frame(&nf, i, json_object_array_get_idx(frames, i), root, l);
	r = allocator_of_frames(nf.f, nf.n);
	/* Go calls the kernel from its runtime, stripped or not. */
	if (r && r->match == ALLOC_MATCH_FRAMES && task_exe_is_go(pid))
		return allocator_detect("", true);
	return r;
}
