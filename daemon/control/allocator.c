// SPDX-License-Identifier: GPL-2.0
/*
 * Allocator rules, first match wins. The advice names each allocator's own
 * switches that keep it from returning parts of huge pages to the kernel
 * (the munmap or madvise that splits the THP), or from asking for THPs.
 */
#include "taod/allocator.h"

#include <elf.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "taod/rootfs.h"

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

static bool read_at(int fd, void *buf, size_t len, off_t off)
{
	return pread(fd, buf, len, off) == (ssize_t)len;
}

/* Whether section header @sh of @fd is named @name in string table @strtab. */
static bool section_named(const Elf64_Shdr *sh, const char *strtab, size_t strsz, const char *name)
{
	return sh->sh_name < strsz &&
	       strnlen(strtab + sh->sh_name, strsz - sh->sh_name) < strsz - sh->sh_name &&
	       !strcmp(strtab + sh->sh_name, name);
}

/* Section names of ELF64 file @fd: its section string table, or NULL. */
static char *section_names(int fd, const Elf64_Ehdr *eh, size_t *size)
{
	Elf64_Shdr strsh;
	char *tab;

	if (eh->e_shstrndx == SHN_UNDEF || eh->e_shstrndx >= eh->e_shnum ||
	    !read_at(fd, &strsh, sizeof(strsh),
		     (off_t)(eh->e_shoff + (Elf64_Off)eh->e_shstrndx * sizeof(strsh))))
		return NULL;
	if (!strsh.sh_size || strsh.sh_size > (1 << 20))
		return NULL;
	tab = malloc(strsh.sh_size);
	if (tab && !read_at(fd, tab, strsh.sh_size, (off_t)strsh.sh_offset)) {
		free(tab);
		tab = NULL;
	}
	*size = strsh.sh_size;
	return tab;
}

bool elf_has_section(const char *path, const char *name)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	Elf64_Ehdr eh;
	Elf64_Shdr sh;
	size_t strsz = 0;
	char *strtab = NULL;
	bool found = false;

	if (fd < 0)
		return false;
	if (read_at(fd, &eh, sizeof(eh), 0) && !memcmp(eh.e_ident, ELFMAG, SELFMAG) &&
	    eh.e_ident[EI_CLASS] == ELFCLASS64 && eh.e_shentsize == sizeof(Elf64_Shdr))
		strtab = section_names(fd, &eh, &strsz);
	for (unsigned i = 0; strtab && !found && i < eh.e_shnum; i++)
		found =
		    read_at(fd, &sh, sizeof(sh), (off_t)(eh.e_shoff + (Elf64_Off)i * sizeof(sh))) &&
		    section_named(&sh, strtab, strsz, name);
	free(strtab);
	close(fd);
	return found;
}

/* The whole of a /proc file, NUL-terminated; NULL if unreadable. */
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
	while (out && (n = fread(buf, 1, sizeof(buf), f)) > 0)
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

const struct allocator_rule *allocator_of_pid(pid_t pid)
{
	char rel[64], exe[PATH_MAX];
	const struct allocator_rule *r;
	char *maps;
	bool go;

	snprintf(rel, sizeof(rel), "/proc/%d/maps", (int)pid);
	maps = read_proc_text(rel);
	if (!maps)
		return NULL;
	snprintf(rel, sizeof(rel), "/proc/%d/exe", (int)pid);
	go = !rootfs_path(exe, sizeof(exe), rel) && elf_has_section(exe, ".go.buildinfo");
	r = allocator_detect(maps, go);
	free(maps);
	return r;
}
