// SPDX-License-Identifier: GPL-2.0
/*
 * Allocator rules, first match wins. The advice names each allocator's own
 * switches that keep it from returning parts of huge pages to the kernel
 * (the munmap or madvise that splits the THP), or from asking for THPs.
 * Frames tell the allocator that made the call; the mappings only which
 * one is loaded (mimalloc preloaded beside glibc is mimalloc's call).
 */
#include "allocator.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/elf_file.h"
#include "common/offload.h"
#include "common/rootfs.h"

/*
 * Measured in the tenants lab (tests/vm/README.md): mimalloc 2.0 left 92%
 * of its THPs partly mapped, 1% with MIMALLOC_ALLOW_DECOMMIT=0; glibc's
 * per-thread arenas 77%, 3% with trim_threshold raised (hugetlb=1: 67%).
 */
static const struct allocator_rule rules[] = {
    {"mimalloc", ALLOC_MATCH_LIB, "libmimalloc", "mi_* _mi_*", NULL,
     "MIMALLOC_ALLOW_DECOMMIT=0 (mimalloc 2.0 and older; 2.1+: MIMALLOC_PURGE_DELAY=-1) "
     "stops mimalloc decommitting (madvise) parts of its segments, which leaves THPs "
     "partly mapped",
     true},
    {"jemalloc", ALLOC_MATCH_LIB, "libjemalloc.so", "je_*", NULL,
     "MALLOC_CONF=thp:never stops jemalloc (5.1+) from asking for THPs; to keep them, purge "
     "less often: a longer dirty_decay_ms and muzzy_decay_ms (-1: never purge), and "
     "metadata_thp:auto for its metadata",
     true},
    {"tcmalloc", ALLOC_MATCH_LIB, "libtcmalloc", "_ZN8tcmalloc* _Z22TCMalloc_SystemRelease*", NULL,
     "TCMALLOC_RELEASE_RATE=0 (gperftools) stops tcmalloc returning free spans to the kernel; "
     "with Google's tcmalloc, turn off background release "
     "(MallocExtension::SetBackgroundReleaseRate(0))",
     true},
    {"jvm", ALLOC_MATCH_LIB, "libjvm.so", NULL, NULL,
     "-XX:+UseTransparentHugePages with -XX:+AlwaysPreTouch, and -Xms equal to -Xmx so the "
     "heap is never uncommitted (G1: keep G1PeriodicGCInterval=0, its default)"},
    {"go", ALLOC_MATCH_GO, NULL, "runtime.*", NULL,
     "GODEBUG=disablethp=1 (Go 1.21.6+) keeps the Go heap off THPs; or return memory less "
     "often: a higher GOGC or GOMEMLIMIT"},
    {"glibc malloc", ALLOC_MATCH_ALWAYS, NULL,
     "free cfree __libc_free realloc __libc_realloc malloc_trim __malloc_trim _int_free* "
     "_int_realloc systrim heap_trim shrink_heap munmap_chunk mremap_chunk",
     "libc.so",
     "GLIBC_TUNABLES=glibc.malloc.trim_threshold=N (M_TRIM_THRESHOLD), N above what the "
     "program frees at once (e.g. 268435456), stops malloc trimming the tops of its heaps "
     "and per-thread arenas, which leaves THPs partly mapped; glibc.malloc.hugetlb=1 alone "
     "does not stop that"},
    {"the program itself", ALLOC_MATCH_FRAMES, NULL, NULL, NULL,
     "the program calls munmap or madvise(MADV_DONTNEED) on part of a huge page itself: "
     "return whole 2 MiB-aligned ranges, or keep the memory and reuse it"},
};

#define N_RULES (sizeof(rules) / sizeof(rules[0]))

/* The part of @path after its last '/'. */
static const char *base_name(const char *path)
{
	const char *s = strrchr(path, '/');

	return s ? s + 1 : path;
}

static bool starts_with(const char *s, const char *prefix)
{
	return !strncmp(s, prefix, strlen(prefix));
}

/* Whether function @func is one of @syms ("a b* c": b* a prefix). */
static bool sym_listed(const char *syms, const char *func)
{
	size_t fl = strlen(func);

	for (const char *p = syms; *p;) {
		size_t n = strcspn(p, " ");
		bool prefix = n && p[n - 1] == '*';
		size_t m = prefix ? n - 1 : n;

		if (prefix ? fl >= m && !strncmp(func, p, m) : fl == m && !strncmp(func, p, m))
			return true;
		p += n + (p[n] == ' ');
	}
	return false;
}

static bool frame_is(const struct allocator_rule *r, const struct allocator_frame *f)
{
	const char *file = f->file ? base_name(f->file) : NULL;

	if (r->lib && file && starts_with(file, r->lib))
		return true;
	return r->syms && f->func && sym_listed(r->syms, f->func) &&
	       (!r->syms_in || (file && starts_with(file, r->syms_in)));
}

static const struct allocator_rule *rule_matching(enum allocator_match m)
{
	for (size_t i = 0; i < N_RULES; i++)
		if (rules[i].match == m)
			return &rules[i];
	return NULL;
}

/* libc's system call wrappers that return memory or change its mapping. */
const char allocator_libc_wrappers[] = "munmap __munmap madvise __madvise posix_madvise "
				       "mprotect __mprotect mremap __mremap syscall";

static bool in_libc(const struct allocator_frame *f)
{
	return f->file && starts_with(base_name(f->file), "libc.so");
}

size_t allocator_caller(const struct allocator_frame *f, size_t n)
{
	size_t i = 0;

	while (i < n && (in_libc(&f[i]) || !f[i].file))
		i++;
	return i;
}

const struct allocator_rule *allocator_of_frames(const struct allocator_frame *f, size_t n)
{
	size_t i = 0;
	bool wrappers = true, any_file = false;

	for (size_t k = 0; k < n; k++)
		for (size_t j = 0; j < N_RULES; j++)
			if (frame_is(&rules[j], &f[k]))
				return &rules[j];
	for (size_t k = 0; k < n; k++)
		any_file |= f[k].file != NULL;
	if (!any_file)
		return NULL;
	/* The innermost run of libc frames: only the wrappers (or none, a
	 * direct system call) means the caller below them returned the memory
	 * itself; any other libc function there, or one stripped of its name,
	 * is malloc's (its internals have no exported symbol). */
	for (; i < n && (in_libc(&f[i]) || !f[i].file); i++) {
		if (f[i].unread)
			return NULL; /* 7.3 lab: a spent budget read as malloc's */
		if (f[i].file && !(f[i].func && sym_listed(allocator_libc_wrappers, f[i].func)))
			wrappers = false;
	}
	if (!wrappers)
		return rule_matching(ALLOC_MATCH_ALWAYS);
	return i < n ? rule_matching(ALLOC_MATCH_FRAMES) : NULL;
}

const struct allocator_rule *allocator_of_frame_files(const struct allocator_frame *f, size_t n)
{
	for (size_t k = 0; k < n; k++)
		for (size_t j = 0; j < N_RULES && f[k].file; j++)
			if (rules[j].lib && starts_with(base_name(f[k].file), rules[j].lib))
				return &rules[j];
	return NULL;
}

/* Whether a line of maps text maps a file whose name starts with @prefix. */
static bool maps_has_lib(const char *maps, const char *prefix)
{
	for (const char *p = strstr(maps, prefix); p; p = strstr(p + 1, prefix))
		if (p > maps && p[-1] == '/')
			return true;
	return false;
}

const struct allocator_rule *allocator_of_libs(const char *maps)
{
	for (size_t i = 0; i < N_RULES && maps; i++)
		if (rules[i].match == ALLOC_MATCH_LIB && maps_has_lib(maps, rules[i].lib))
			return &rules[i];
	return NULL;
}

const struct allocator_rule *allocator_detect(const char *maps, bool go_binary)
{
	for (size_t i = 0; i < N_RULES; i++) {
		const struct allocator_rule *r = &rules[i];

		if (r->match == ALLOC_MATCH_ALWAYS || (r->match == ALLOC_MATCH_GO && go_binary) ||
		    (r->match == ALLOC_MATCH_LIB && maps_has_lib(maps, r->lib)))
			return r;
	}
	return rule_matching(ALLOC_MATCH_ALWAYS);
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
	offload_note("reading %.140s", path);
	/* A tenant may map 64,000 files: its maps is read up to a cap, and
	 * within the time left (each read takes the task's mmap lock). */
	for (size_t total = 0; out && total < PROC_TEXT_MAX && !offload_time_up() &&
			       (n = fread(buf, 1, sizeof(buf), f));
	     total += n)
		fwrite(buf, 1, n, out);
	if (out)
		fclose(out);
	if (ferror(f) || !len || offload_time_up()) {
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

bool task_exe_is_go(pid_t pid)
{
	char rel[64], exe[PATH_MAX];

	snprintf(rel, sizeof(rel), "/proc/%d/exe", (int)pid);
	return !rootfs_path(exe, sizeof(exe), rel) && elf_has_section(NULL, exe, ".go.buildinfo");
}

const struct allocator_rule *allocator_of_pid(pid_t pid, const char *maps)
{
	return maps ? allocator_detect(maps, task_exe_is_go(pid)) : NULL;
}
