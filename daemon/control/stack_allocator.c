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
#include "observe/split_cause.h"
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
	int r;

	if (!a->file || !json_object_object_get_ex(fr, "offset", &off))
		return;
	r = file_lookups_symbol(l, root, a->file, (uint64_t)json_object_get_int64(off), nf->func[i],
				sizeof(nf->func[0]));
	a->unread = r == FILE_LOOKUPS_SPENT;
	if (!r)
		a->func = nf->func[i];
}

/*
 * libc keeps no frame pointers and its wrappers no frame at all: a stack
 * sampled in munmap/madvise shows below libc's frames not the caller but
 * the nearest frame that kept one (the caller's caller; the program's,
 * under an allocator library built without them). So that frame names
 * the caller only where nothing else could have called (issue 26 item 5:
 * a glibc server's per-thread trims were told "the program itself", and
 * preloaded mimalloc's decommits "glibc malloc"). Asked of the files
 * alone before any symbol: one small file, where a loaded guest's budget
 * ran out on libc's symbols. @decided false: the frames' names tell.
 */
static const struct allocator_rule *below_libc(const struct named_frames *nf, const char *root,
					       const struct allocator_rule *mapped,
					       struct file_lookups *l, bool *decided)
{
	size_t i = allocator_caller(nf->f, nf->n);
	int imports;

	*decided = false;
	if (i == 0 || i >= nf->n)
		return NULL; /* the program's own system call, or no caller shown */
	imports = file_lookups_imports(l, root, nf->f[i].file, allocator_libc_wrappers);
	*decided = imports <= 0 || mapped;
	if (imports < 0)
		return NULL; /* unknown (a static program, the budget spent): the maps */
	if (mapped)
		return mapped; /* the loaded allocator could have called it */
	return imports == 0 ? allocator_detect("", false) : NULL; /* only libc's malloc could */
}

/* Whether @stack's split came from a call that returns or remaps memory:
 * a split in a fault, at exit or by the kernel's own work (issue 26 item
 * 3) names no allocator, whatever the frames above it. */
static bool split_by_a_call(struct json_object *stack)
{
	struct json_object *cause;
	const char *name;

	return json_object_object_get_ex(stack, "cause", &cause) &&
	       (name = json_object_get_string(cause)) &&
	       split_cause_returns_memory(split_cause_from_name(name));
}

const struct allocator_rule *stack_allocator(struct json_object *stack, pid_t pid, const char *root,
					     const char *maps, struct file_lookups *l)
{
	struct json_object *frames;
	struct named_frames nf = {.n = 0};
	const struct allocator_rule *r, *mapped = allocator_of_libs(maps);
	bool decided;

	if (!stack || !split_by_a_call(stack) ||
	    !json_object_object_get_ex(stack, "frames", &frames))
		return NULL;
	for (size_t i = 0; i < json_object_array_length(frames) && nf.n < TAOD_STACK_FRAMES; i++)
		file_of_frame(&nf, json_object_array_get_idx(frames, i));
	/* An allocator's library among the files needs no symbol looked up. */
	if ((r = allocator_of_frame_files(nf.f, nf.n)))
		return r;
	r = below_libc(&nf, root, mapped, l, &decided);
	if (decided)
		return r;
	for (size_t i = 0; i < nf.n; i++)
		name_frame(&nf, i, json_object_array_get_idx(frames, i), root, l);
	r = allocator_of_frames(nf.f, nf.n);
	/* libc's frames tell glibc's malloc only where no loaded allocator
	 * took its place (jemalloc preloaded: libc's own calls reach it too). */
	if (r && r->match == ALLOC_MATCH_ALWAYS && mapped && mapped->replaces_malloc)
		return mapped;
	/* Go calls the kernel from its runtime, stripped or not. */
	if (r && r->match == ALLOC_MATCH_FRAMES && task_exe_is_go(pid))
		return allocator_detect("", true);
	return r;
}
