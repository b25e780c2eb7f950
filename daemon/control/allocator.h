/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Which memory allocator split a task's THPs, told from the frames of the
 * splitting call (a sampled split stack) or else from the task's mappings,
 * and what its owner can set to stop it. One table row per allocator.
 */
#ifndef TAOD_ALLOCATOR_H
#define TAOD_ALLOCATOR_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

enum allocator_match {
	ALLOC_MATCH_LIB,    /* a mapped file whose name starts with @lib */
	ALLOC_MATCH_GO,	    /* the executable has a .go.buildinfo section */
	ALLOC_MATCH_ALWAYS, /* the fallback: glibc's malloc */
	ALLOC_MATCH_FRAMES, /* only from frames: the program's own munmap/madvise */
};

struct allocator_rule {
	const char *name;
	enum allocator_match match;
	/* A frame in a file whose name starts with @lib is this allocator's
	 * (with ALLOC_MATCH_LIB, a mapping of it too), e.g. "libjemalloc.so". */
	const char *lib;
	/* Or a frame in a function named in @syms (space-separated; "mi_*" is
	 * a prefix), in a file whose name starts with @syms_in (NULL: any). */
	const char *syms;
	const char *syms_in;
	const char *advice;
	/* Loaded, it takes malloc's place (LD_PRELOAD): glibc's goes unused. */
	bool replaces_malloc;
};

/* One frame of a split's user stack: its file (NULL: none found) and the
 * function it is in (NULL: not known, e.g. a stripped internal one;
 * @unread: its file was never read, so not even that is known). */
struct allocator_frame {
	const char *file;
	const char *func;
	bool unread;
};

/* The first rule that matches /proc/PID/maps text @maps (NUL-terminated)
 * and @go_binary; never NULL (the last rule always matches). */
const struct allocator_rule *allocator_detect(const char *maps, bool go_binary);
/*
 * The allocator whose code made the splitting call of frames @f (@n,
 * innermost first): the first frame in an allocator's file or function;
 * else, when the innermost frames are libc's munmap/madvise wrappers
 * called from outside libc, the program itself; else glibc's malloc when
 * they are libc's other (malloc's) functions. NULL when no frame has a
 * file, or one of those libc frames was left unread (nothing tells then).
 */
const struct allocator_rule *allocator_of_frames(const struct allocator_frame *f, size_t n);
/* libc's system call wrappers that return memory or change a mapping,
 * space-separated: what the program itself would call to split a THP. */
extern const char allocator_libc_wrappers[];
/* The frame that called into the innermost run of libc frames of @f (@n):
 * its index, or @n when there is none. */
size_t allocator_caller(const struct allocator_frame *f, size_t n);
/* The allocator whose library holds one of frames @f (@n), innermost
 * first, told from the files alone (no function looked up); NULL if none. */
const struct allocator_rule *allocator_of_frame_files(const struct allocator_frame *f, size_t n);
/* The allocator whose library @maps maps (ALLOC_MATCH_LIB only: no file
 * opened); NULL if none. */
const struct allocator_rule *allocator_of_libs(const char *maps);
/* /proc/@pid/maps (under the root taod inspects), NUL-terminated, to be
 * freed; NULL when it cannot be read (gone, or no permission). */
char *task_maps_read(pid_t pid);
/* Whether task @pid's executable is a Go program (.go.buildinfo). */
bool task_exe_is_go(pid_t pid);
/* The allocator of task @pid with mappings @maps (NULL: unknown). */
const struct allocator_rule *allocator_of_pid(pid_t pid, const char *maps);

#endif
