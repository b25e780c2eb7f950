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

/* Frame @fr's file and, where a symbol covers its offset, function. */
static void name_frame(struct named_frames *nf, struct json_object *fr, const char *root,
		       struct file_lookups *l)
{
	struct json_object *file, *off;
	struct allocator_frame *a = &nf->f[nf->n];

	*a = (struct allocator_frame){0};
	if (json_object_object_get_ex(fr, "file", &file) &&
	    json_object_is_type(file, json_type_string))
		a->file = json_object_get_string(file);
	if (a->file && json_object_object_get_ex(fr, "offset", &off) &&
	    !file_lookups_symbol(l, root, a->file, (uint64_t)json_object_get_int64(off),
				 nf->func[nf->n], sizeof(nf->func[0])))
		a->func = nf->func[nf->n];
	nf->n++;
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
		name_frame(&nf, json_object_array_get_idx(frames, i), root, l);
	r = allocator_of_frames(nf.f, nf.n);
	/* Go calls the kernel from its runtime, stripped or not. */
	if (r && r->match == ALLOC_MATCH_FRAMES && task_exe_is_go(pid))
		return allocator_detect("", true);
	return r;
}
