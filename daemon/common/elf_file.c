// SPDX-License-Identifier: GPL-2.0
/* Bounded reads of ELF64 files (see elf_file.h). */
#include "elf_file.h"

#include <elf.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tenant_file.h"

#define TABLE_MAX    (64u << 20) /* a symbol or string table read whole, at most */
#define NAMES_MAX    (1u << 20)	 /* the section names (real files: a few hundred bytes) */
#define SECTIONS_MAX 4096	 /* real executables and libraries have under 100 */
#define FILE_MAX     (4ULL << 30)

struct elf {
	int fd;
	off_t size;
	Elf64_Ehdr eh;
	Elf64_Shdr *sh; /* the section headers, read in one go */
};

static bool read_at(const struct elf *e, void *buf, uint64_t len, uint64_t off)
{
	return off <= (uint64_t)e->size && len <= (uint64_t)e->size - off &&
	       pread(e->fd, buf, len, (off_t)off) == (ssize_t)len;
}

static void elf_close(struct elf *e)
{
	free(e->sh);
	close(e->fd);
}

/* A bounded file (tenant_file.h), its header, and its section headers:
 * at most SECTIONS_MAX, read with one pread, not one each. */
static bool elf_open(struct elf *e, const char *root, const char *path)
{
	struct stat st;
	size_t len;

	e->sh = NULL;
	e->fd = tenant_file_open(root, path, FILE_MAX);
	if (e->fd < 0)
		return false;
	e->size = fstat(e->fd, &st) ? 0 : st.st_size;
	if (read_at(e, &e->eh, sizeof(e->eh), 0) && !memcmp(e->eh.e_ident, ELFMAG, SELFMAG) &&
	    e->eh.e_ident[EI_CLASS] == ELFCLASS64 && e->eh.e_shentsize == sizeof(Elf64_Shdr) &&
	    e->eh.e_shnum <= SECTIONS_MAX) {
		len = (size_t)e->eh.e_shnum * sizeof(Elf64_Shdr);
		e->sh = malloc(len ? len : 1);
		if (e->sh && read_at(e, e->sh, len, e->eh.e_shoff))
			return true;
	}
	elf_close(e);
	return false;
}

static bool section(const struct elf *e, unsigned i, Elf64_Shdr *sh)
{
	if (i >= e->eh.e_shnum)
		return false;
	*sh = e->sh[i];
	return true;
}

/* Section @sh's contents, read whole (at most @max bytes), or NULL. */
static void *contents(const struct elf *e, const Elf64_Shdr *sh, uint64_t max)
{
	void *buf;

	if (sh->sh_type == SHT_NOBITS || !sh->sh_size || sh->sh_size > max)
		return NULL;
	buf = malloc(sh->sh_size + 1);
	if (buf && !read_at(e, buf, sh->sh_size, sh->sh_offset)) {
		free(buf);
		return NULL;
	}
	if (buf)
		((char *)buf)[sh->sh_size] = '\0'; /* strings end inside the buffer */
	return buf;
}

/* Index of the section named @name, or -1. */
static int find_section(const struct elf *e, const char *name, Elf64_Shdr *out)
{
	Elf64_Shdr strsh;
	char *names;
	int found = -1;

	if (!section(e, e->eh.e_shstrndx, &strsh) || !(names = contents(e, &strsh, NAMES_MAX)))
		return -1;
	for (unsigned i = 0; found < 0 && section(e, i, out); i++)
		if (out->sh_name < strsh.sh_size && !strcmp(names + out->sh_name, name))
			found = (int)i;
	free(names);
	return found;
}

bool elf_has_section(const char *root, const char *path, const char *name)
{
	struct elf e;
	Elf64_Shdr sh;
	bool found;

	if (!elf_open(&e, root, path))
		return false;
	found = find_section(&e, name, &sh) >= 0;
	elf_close(&e);
	return found;
}

size_t elf_build_id(const char *root, const char *path, unsigned char id[ELF_BUILD_ID_MAX])
{
	struct elf e;
	Elf64_Shdr sh;
	unsigned char *note = NULL;
	size_t n = 0;

	if (!elf_open(&e, root, path))
		return 0;
	if (find_section(&e, ".note.gnu.build-id", &sh) >= 0)
		note = contents(&e, &sh, NAMES_MAX);
	if (note && sh.sh_size >= sizeof(Elf64_Nhdr)) {
		const Elf64_Nhdr *nh = (const void *)note;
		size_t desc = sizeof(*nh) + ((nh->n_namesz + 3) & ~3u);

		if (nh->n_type == NT_GNU_BUILD_ID && desc <= sh.sh_size &&
		    nh->n_descsz <= sh.sh_size - desc && nh->n_descsz <= ELF_BUILD_ID_MAX) {
			n = nh->n_descsz;
			memcpy(id, note + desc, n);
		}
	}
	free(note);
	elf_close(&e);
	return n;
}

/* The virtual address file offset @off is loaded at, from the section
 * holding it; false when no section does. */
static bool offset_to_addr(const struct elf *e, uint64_t off, uint64_t *addr)
{
	Elf64_Shdr sh;

	for (unsigned i = 1; section(e, i, &sh); i++)
		if (sh.sh_type != SHT_NOBITS && sh.sh_addr && off >= sh.sh_offset &&
		    off - sh.sh_offset < sh.sh_size) {
			*addr = sh.sh_addr + (off - sh.sh_offset);
			return true;
		}
	return false;
}

/* Symbol table @symsh into *@syms and its strings (@strsh) into *@strs;
 * *@strs NULL when either could not be read. The caller frees both. */
static void symbols_read(const struct elf *e, const Elf64_Shdr *symsh, Elf64_Shdr *strsh,
			 Elf64_Sym **syms, char **strs)
{
	*syms = NULL;
	*strs = NULL;
	if (symsh->sh_entsize == sizeof(Elf64_Sym) && section(e, symsh->sh_link, strsh))
		*syms = contents(e, symsh, TABLE_MAX);
	*strs = *syms ? contents(e, strsh, TABLE_MAX) : NULL;
}

/* The function symbol of table @symsh covering @addr, named into @out. */
static int lookup(const struct elf *e, const Elf64_Shdr *symsh, uint64_t addr, char *out,
		  size_t len)
{
	Elf64_Shdr strsh;
	Elf64_Sym *syms;
	char *strs;
	int r = -1;

	symbols_read(e, symsh, &strsh, &syms, &strs);
	for (size_t i = 0; strs && r && i < symsh->sh_size / sizeof(*syms); i++) {
		const Elf64_Sym *s = &syms[i];

		if (ELF64_ST_TYPE(s->st_info) != STT_FUNC || addr < s->st_value ||
		    addr - s->st_value >= (s->st_size ? s->st_size : 1) ||
		    s->st_name >= strsh.sh_size)
			continue;
		snprintf(out, len, "%s+0x%llx", strs + s->st_name,
			 (unsigned long long)(addr - s->st_value));
		r = 0;
	}
	free(syms);
	free(strs);
	return r;
}

/* Whether @name is one of the space-separated words of @names. */
static bool word_in(const char *names, const char *name)
{
	size_t len = strlen(name);

	for (const char *w = names; (w = strstr(w, name)); w += len)
		if ((w == names || w[-1] == ' ') && (w[len] == ' ' || !w[len]))
			return true;
	return false;
}

/* 1 when table @symsh has an undefined symbol named in @names, 0 if not,
 * -1 when it cannot be read. */
static int imports_in(const struct elf *e, const Elf64_Shdr *symsh, const char *names)
{
	Elf64_Shdr strsh;
	Elf64_Sym *syms;
	char *strs;
	int r = -1;

	symbols_read(e, symsh, &strsh, &syms, &strs);
	for (size_t i = 0; strs && r != 1 && i < symsh->sh_size / sizeof(*syms); i++) {
		const Elf64_Sym *s = &syms[i];

		r = 0;
		if (s->st_shndx == SHN_UNDEF && s->st_name && s->st_name < strsh.sh_size &&
		    word_in(names, strs + s->st_name))
			r = 1;
	}
	free(syms);
	free(strs);
	return r;
}

int elf_imports_any(const char *root, const char *path, const char *names)
{
	struct elf e;
	Elf64_Shdr sh;
	int r = -1;

	if (!elf_open(&e, root, path))
		return -1;
	if (find_section(&e, ".dynsym", &sh) >= 0)
		r = imports_in(&e, &sh, names);
	elf_close(&e);
	return r;
}

int elf_symbolize(const char *root, const char *path, uint64_t off, char *out, size_t len)
{
	struct elf e;
	Elf64_Shdr sh;
	uint64_t addr;
	int r = -1;

	if (!elf_open(&e, root, path))
		return -1;
	if (offset_to_addr(&e, off, &addr)) {
		if (find_section(&e, ".symtab", &sh) >= 0)
			r = lookup(&e, &sh, addr, out, len);
		if (r && find_section(&e, ".dynsym", &sh) >= 0)
			r = lookup(&e, &sh, addr, out, len);
	}
	elf_close(&e);
	return r;
}
