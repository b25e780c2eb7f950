// SPDX-License-Identifier: GPL-2.0
/*
 * Allocator rules, first match wins. The advice names each allocator's own
 * switches that keep it from returning parts of huge pages to the kernel
 * (the munmap or madvise that splits the THP), or from asking for THPs.
 */
#include "allocator.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/elf_file.h"
#include "common/rootfs.h"

static const struct allocator_rule rules[] = {
    {"jemalloc", ALLOC_MATCH_LIB, "libjemalloc.so",
     "MALLOC_CONF=thp:never stops jemalloc (5.1+) from asking for THPs; to keep them, purge "
     "less often: a longer dirty_decay_ms and muzzy_decay_ms (-1: never purge), and "
     "metadata_thp:auto for its metadata"},
    {"tcmalloc", ALLOC_MATCH_LIB, "libtcmalloc",
     "TCMALLOC_RELEASE_RATE=0 (gperftools) stops tcmalloc returning free spans to the kernel; "
     "with Google's tcmalloc, turn off background release "
     "(MallocExtension::SetBackgroundReleaseRate(0))"},
    {"jvm", ALLOC_MATCH_LIB, "libjvm.so",
     "-XX:+UseTransparentHugePages with -XX:+AlwaysPreTouch, and -Xms equal to -Xmx so the "
     "heap is never uncommitted (G1: keep G1PeriodicGCInterval=0, its default)"},
    {"go", ALLOC_MATCH_GO, NULL,
     "GODEBUG=disablethp=1 (Go 1.21.6+) keeps the Go heap off THPs; or return memory less "
     "often: a higher GOGC or GOMEMLIMIT"},
    {"glibc malloc", ALLOC_MATCH_ALWAYS, NULL,
     "GLIBC_TUNABLES=glibc.malloc.hugetlb=1 (glibc 2.35+) makes malloc ask for THPs with "
     "huge-page-aligned heap growth; a larger M_TRIM_THRESHOLD and M_MMAP_THRESHOLD "
     "(glibc.malloc.trim_threshold, glibc.malloc.mmap_threshold) trim and munmap less"},
};

/* Whether a line of maps text maps a file whose name starts with @prefix. */
static bool maps_has_lib(const char *maps, const char *prefix)
{
	for (const char *p = strstr(maps, prefix); p; p = strstr(p + 1, prefix))
		if (p > maps && p[-1] == '/')
			return true;
	return false;
}

const struct allocator_rule *allocator_detect(const char *maps, bool go_binary)
{
	size_t n = sizeof(rules) / sizeof(rules[0]);

	for (size_t i = 0; i < n; i++) {
		const struct allocator_rule *r = &rules[i];

		if (r->match == ALLOC_MATCH_ALWAYS || (r->match == ALLOC_MATCH_GO && go_binary) ||
		    (r->match == ALLOC_MATCH_LIB && maps_has_lib(maps, r->lib)))
			return r;
	}
	return &rules[n - 1];
}

#define PROC_TEXT_MAX (4u << 20)

/* A /proc file, NUL-terminated, up to PROC_TEXT_MAX (and a buffer);
 * NULL if unreadable. */
static char *read_proc_text(const char *rel)
{
	char path[PATH_MAX], *text = NULL;
	size_t len = 0;
	FILE *f, *out;
	char buf[8192];
	size_t n;

	if (rootfs_path(path, sizeof(path), rel))
		return NULL;
	f = fopen(path, "re");
	if (!f)
		return NULL;
	out = open_memstream(&text, &len);
	/* A tenant may map 64,000 files: its maps is read up to a cap. */
	for (size_t total = 0; out && total < PROC_TEXT_MAX && (n = fread(buf, 1, sizeof(buf), f));
	     total += n)
		fwrite(buf, 1, n, out);
	if (out)
		fclose(out);
	if (ferror(f) || !len) {
		free(text);
		text = NULL;
	}
	fclose(f);
	return text;
}

char *task_maps_read(pid_t pid)
{
	char rel[64];

	snprintf(rel, sizeof(rel), "/proc/%d/maps", (int)pid);
	return read_proc_text(rel);
}

const struct allocator_rule *allocator_of_pid(pid_t pid, const char *maps)
{
	char rel[64], exe[PATH_MAX];
	bool go;

	if (!maps)
		return NULL;
	snprintf(rel, sizeof(rel), "/proc/%d/exe", (int)pid);
	go = !rootfs_path(exe, sizeof(exe), rel) && elf_has_section(NULL, exe, ".go.buildinfo");
	return allocator_detect(maps, go);
}
