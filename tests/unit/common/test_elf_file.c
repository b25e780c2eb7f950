// SPDX-License-Identifier: GPL-2.0
/* ELF reads on this test program itself, and on files that are not ELF. */
#include <criterion/criterion.h>
#include <elf.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
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

	cr_assert_eq(elf_symbolize("/", self_path(), off, sym, sizeof(sym)), 0);
	cr_assert_str_eq(sym, "explain_print+0x0");
	cr_assert_eq(elf_symbolize("/", self_path(), off + 4, sym, sizeof(sym)), 0);
	cr_assert_str_eq(sym, "explain_print+0x4");
	cr_assert_eq(elf_symbolize("/", self_path(), 0, sym, sizeof(sym)), -1); /* the ELF header */
}

Test(elf_file, elf_build_id_reads_the_gnu_note)
{
	unsigned char id[ELF_BUILD_ID_MAX], again[ELF_BUILD_ID_MAX];
	unsigned char zero[ELF_BUILD_ID_MAX] = {0};

	cr_assert_eq(elf_build_id("/", self_path(), id), ELF_BUILD_ID_MAX);
	cr_assert_neq(memcmp(id, zero, sizeof(id)), 0);
	cr_assert_eq(elf_build_id("/", self_path(), again), ELF_BUILD_ID_MAX);
	cr_assert_eq(memcmp(id, again, sizeof(id)), 0);
}

Test(elf_file, elf_reads_refuse_what_is_not_elf)
{
	unsigned char id[ELF_BUILD_ID_MAX];
	char sym[64];
	char dir[SCRATCH_DIR_MAX];
	const char *junk;

	cr_assert(elf_has_section("/", self_path(), ".text"));
	cr_assert_not(elf_has_section("/", self_path(), ".go.buildinfo"));
	junk = scratch_write(scratch_make(dir, "elf"), "junk",
			     "\177ELF\002 but only a header's first bytes");
	cr_assert_not(elf_has_section("/", junk, ".text"));
	cr_assert_eq(elf_build_id("/", junk, id), 0);
	cr_assert_eq(elf_symbolize("/", junk, 0, sym, sizeof(sym)), -1);
	cr_assert_eq(scratch_remove(dir), 0);
	cr_assert_not(elf_has_section("/", "/nonexistent/taod/file", ".text"));
	cr_assert_eq(elf_build_id("/", "/nonexistent/taod/file", id), 0);
}

/* An ELF with @nsec section headers, the last ".note.gnu.build-id" with an
 * id of 20 bytes 0x5a, section 1 the names; written to @path. */
static void write_many_sections(const char *path, unsigned nsec)
{
	static const char names[] = "\0.shstrtab\0.note.gnu.build-id";
	struct {
		Elf64_Nhdr nh;
		char name[4];
		unsigned char id[ELF_BUILD_ID_MAX];
	} note = {{4, ELF_BUILD_ID_MAX, NT_GNU_BUILD_ID}, "GNU", {0}};
	Elf64_Ehdr eh = {.e_ident = {ELFMAG0, ELFMAG1, ELFMAG2, ELFMAG3, ELFCLASS64},
			 .e_shentsize = sizeof(Elf64_Shdr),
			 .e_shnum = (Elf64_Half)nsec,
			 .e_shstrndx = 1};
	Elf64_Shdr *sh = calloc(nsec, sizeof(*sh));
	uint64_t data = sizeof(eh) + (uint64_t)nsec * sizeof(*sh);
	FILE *f = fopen(path, "w");

	cr_assert(sh && f);
	memset(note.id, 0x5a, sizeof(note.id));
	eh.e_shoff = sizeof(eh);
	sh[1] = (Elf64_Shdr){
	    .sh_name = 1, .sh_type = SHT_STRTAB, .sh_offset = data, .sh_size = sizeof(names)};
	sh[nsec - 1] = (Elf64_Shdr){.sh_name = 11,
				    .sh_type = SHT_NOTE,
				    .sh_offset = data + sizeof(names),
				    .sh_size = sizeof(note)};
	fwrite(&eh, sizeof(eh), 1, f);
	fwrite(sh, sizeof(*sh), nsec, f);
	fwrite(names, sizeof(names), 1, f);
	fwrite(&note, sizeof(note), 1, f);
	fclose(f);
	free(sh);
}

/* Issue 27: 65,535 section headers, each read with its own pread, held
 * taod's loop 26 s for 100 mappings; past 4,096 the file is not read. */
Test(elf_file, elf_build_id_refuses_a_file_with_too_many_sections)
{
	unsigned char id[ELF_BUILD_ID_MAX];
	char dir[SCRATCH_DIR_MAX], path[SCRATCH_DIR_MAX + 16];

	scratch_make(dir, "elf");
	snprintf(path, sizeof(path), "%s/few", dir);
	write_many_sections(path, 4096);
	cr_assert_eq(elf_build_id("/", path, id), ELF_BUILD_ID_MAX);
	cr_assert_eq(id[0], 0x5a);
	snprintf(path, sizeof(path), "%s/many", dir);
	write_many_sections(path, 65535);
	cr_assert_eq(elf_build_id("/", path, id), 0);
	cr_assert_not(elf_has_section("/", path, ".shstrtab"));
	cr_assert_eq(scratch_remove(dir), 0);
}

/* An ELF whose .dynsym holds one undefined symbol, @import (a program
 * that calls @import from a library), written to @path. */
static void write_importer(const char *path, const char *import)
{
	static const char names[] = "\0.shstrtab\0.dynsym\0.dynstr";
	char strs[64] = "";
	Elf64_Sym syms[2] = {{0}, {.st_name = 1, .st_info = ELF64_ST_INFO(STB_GLOBAL, STT_FUNC)}};
	Elf64_Ehdr eh = {.e_ident = {ELFMAG0, ELFMAG1, ELFMAG2, ELFMAG3, ELFCLASS64},
			 .e_shentsize = sizeof(Elf64_Shdr),
			 .e_shnum = 4,
			 .e_shstrndx = 1,
			 .e_shoff = sizeof(Elf64_Ehdr)};
	Elf64_Shdr sh[4] = {{0}};
	uint64_t data = sizeof(eh) + sizeof(sh);
	FILE *f = fopen(path, "w");

	cr_assert_not_null(f);
	snprintf(strs + 1, sizeof(strs) - 1, "%s", import);
	sh[1] = (Elf64_Shdr){
	    .sh_name = 1, .sh_type = SHT_STRTAB, .sh_offset = data, .sh_size = sizeof(names)};
	sh[2] = (Elf64_Shdr){.sh_name = 11,
			     .sh_type = SHT_DYNSYM,
			     .sh_offset = data + sizeof(names),
			     .sh_size = sizeof(syms),
			     .sh_link = 3,
			     .sh_entsize = sizeof(Elf64_Sym)};
	sh[3] = (Elf64_Shdr){.sh_name = 19,
			     .sh_type = SHT_STRTAB,
			     .sh_offset = data + sizeof(names) + sizeof(syms),
			     .sh_size = sizeof(strs)};
	fwrite(&eh, sizeof(eh), 1, f);
	fwrite(sh, sizeof(sh), 1, f);
	fwrite(names, sizeof(names), 1, f);
	fwrite(syms, sizeof(syms), 1, f);
	fwrite(strs, sizeof(strs), 1, f);
	fclose(f);
}

/* Issue 26 item 5: a program that imports no munmap or madvise cannot
 * have called one; a stack that shows it below libc's madvise lost
 * glibc's malloc frames between them. */
Test(elf_file, elf_imports_any_tells_what_a_program_calls_from_libc)
{
	char dir[SCRATCH_DIR_MAX], path[SCRATCH_DIR_MAX + 16];
	const char *junk;

	scratch_make(dir, "elf");
	snprintf(path, sizeof(path), "%s/cache", dir);
	write_importer(path, "free");
	cr_assert_eq(elf_imports_any("/", path, "munmap madvise __madvise syscall"), 0);
	cr_assert_eq(elf_imports_any("/", path, "malloc free"), 1);
	cr_assert_eq(elf_imports_any("/", path, "fre"), 0); /* whole words only */
	write_importer(path, "madvise");
	cr_assert_eq(elf_imports_any("/", path, "munmap madvise __madvise syscall"), 1);
	junk = scratch_write(dir, "junk", "\177ELF\002 but only a header's first bytes");
	cr_assert_eq(elf_imports_any("/", junk, "madvise"), -1);
	cr_assert_eq(scratch_remove(dir), 0);
}
