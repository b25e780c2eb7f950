/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What taod and taoctl read from ELF files: whether a section is there,
 * the GNU build-id, and the function at a file offset. 64-bit files only;
 * every size and offset is checked against the file, so a broken or
 * hostile file gives "not found", never a crash. Files are opened as
 * tenant_file_open(@root, @path) does (a tenant's FIFO or FUSE file is
 * "not found", never a hang), and the work per file is bounded: at most
 * 4,096 section headers read in one go, 1 MiB of section names.
 */
#ifndef TAOD_ELF_FILE_H
#define TAOD_ELF_FILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define ELF_BUILD_ID_MAX 20

/* Whether ELF file @path has a section named @name. */
bool elf_has_section(const char *root, const char *path, const char *name);
/* Copies @path's GNU build-id (NT_GNU_BUILD_ID) to @id; returns its length,
 * or 0 if there is none or the file is not readable ELF. */
size_t elf_build_id(const char *root, const char *path, unsigned char id[ELF_BUILD_ID_MAX]);
/* "function+0x1c" for file offset @off of @path, from .symtab or else
 * .dynsym; returns 0, or -1 when no function symbol covers it. */
int elf_symbolize(const char *root, const char *path, uint64_t off, char *out, size_t len);
/* Whether @path's .dynsym imports (holds undefined) a symbol named one of
 * @names (space-separated): 1 yes, 0 no, -1 unknown (not readable ELF, or
 * no .dynsym: a static program has libc's code within itself). */
int elf_imports_any(const char *root, const char *path, const char *names);

#endif
