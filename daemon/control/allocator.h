/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Which memory allocator a task uses, told from its mappings, and what its
 * owner can set to stop it splitting THPs. One table row per allocator.
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
};

struct allocator_rule {
	const char *name;
	enum allocator_match match;
	const char *lib; /* ALLOC_MATCH_LIB: file name prefix, e.g. "libjemalloc.so" */
	const char *advice;
};

/* The first rule that matches /proc/PID/maps text @maps (NUL-terminated)
 * and @go_binary; never NULL (the last rule always matches). */
const struct allocator_rule *allocator_detect(const char *maps, bool go_binary);
/* /proc/@pid/maps (under the root taod inspects), NUL-terminated, to be
 * freed; NULL when it cannot be read (gone, or no permission). */
char *task_maps_read(pid_t pid);
/* The allocator of task @pid with mappings @maps (NULL: unknown). */
const struct allocator_rule *allocator_of_pid(pid_t pid, const char *maps);

#endif
