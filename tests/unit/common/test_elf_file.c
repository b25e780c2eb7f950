// SPDX-License-Identifier: GPL-2.0
/* ELF reads on this test program itself, and on files that are not ELF. */
#include <criterion/criterion.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "common/elf_file.h"
#include "control/explain.h"
#include "../support/scratch.h"

static const char *self_path(void)
{
	static char self[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);

	cr_assert_gt(n, 0);
	self[n] = '\0';
	return self;
}

/* The file offset of this process's address @addr, from /proc/self/maps. */
static uint64_t file_offset_of(uintptr_t addr)
{
	char line[PATH_MAX + 128];
	uint64_t start, end, pgoff, off = UINT64_MAX;
	FILE *f = fopen("/proc/self/maps", "r");

	cr_assert_not_null(f);
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "%" SCNx64 "-%" SCNx64 " %*s %" SCNx64, &start, &end, &pgoff) ==
			3 &&
		    addr >= start && addr < end)
			off = addr - start + pgoff;
	fclose(f);
	cr_assert_neq(off, UINT64_MAX);
	return off;
}

Test(elf_file, elf_symbolize_names_a_function_and_the_offset_in_it)
{
	uint64_t off = file_offset_of((uintptr_t)&explain_print);
	char sym[128];

	cr_assert_eq(elf_symbolize(self_path(), off, sym, sizeof(sym)), 0);
	cr_assert_str_eq(sym, "explain_print+0x0");
	cr_assert_eq(elf_symbolize(self_path(), off + 4, sym, sizeof(sym)), 0);
	cr_assert_str_eq(sym, "explain_print+0x4");
	cr_assert_eq(elf_symbolize(self_path(), 0, sym, sizeof(sym)), -1); /* the ELF header */
}

Test(elf_file, elf_build_id_reads_the_gnu_note)
{
	unsigned char id[ELF_BUILD_ID_MAX], again[ELF_BUILD_ID_MAX];
	unsigned char zero[ELF_BUILD_ID_MAX] = {0};

	cr_assert_eq(elf_build_id(self_path(), id), ELF_BUILD_ID_MAX);
	cr_assert_neq(memcmp(id, zero, sizeof(id)), 0);
	cr_assert_eq(elf_build_id(self_path(), again), ELF_BUILD_ID_MAX);
	cr_assert_eq(memcmp(id, again, sizeof(id)), 0);
}

Test(elf_file, elf_reads_refuse_what_is_not_elf)
{
	unsigned char id[ELF_BUILD_ID_MAX];
	char sym[64];
	char dir[SCRATCH_DIR_MAX];
	const char *junk;

	cr_assert(elf_has_section(self_path(), ".text"));
	cr_assert_not(elf_has_section(self_path(), ".go.buildinfo"));
	junk = scratch_write(scratch_make(dir, "elf"), "junk",
			     "\177ELF\002 but only a header's first bytes");
	cr_assert_not(elf_has_section(junk, ".text"));
	cr_assert_eq(elf_build_id(junk, id), 0);
	cr_assert_eq(elf_symbolize(junk, 0, sym, sizeof(sym)), -1);
	cr_assert_eq(scratch_remove(dir), 0);
	cr_assert_not(elf_has_section("/nonexistent/taod/file", ".text"));
	cr_assert_eq(elf_build_id("/nonexistent/taod/file", id), 0);
}
