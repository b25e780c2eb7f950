/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The file work one request may do in taod's loop: tenants name the files
 * (their mappings), so each request has a time budget and a cap on files
 * opened, and looks each file up once. Defined in file_lookups.c.
 */
#ifndef TAOD_FILE_LOOKUPS_H
#define TAOD_FILE_LOOKUPS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/elf_file.h"

#define FILE_LOOKUPS_MS 40 /* of the loop's time per request */
/* In an offload child (explain off the loop): its time is its own. */
#define FILE_LOOKUPS_CHILD_MS 500
#define FILE_LOOKUPS_FILES    64 /* files opened per request */

struct file_lookup;

struct file_lookups {
	uint64_t deadline_us;
	unsigned opened;
	const char *stopped; /* why lookups stopped ("time", "files"), or NULL */
	struct file_lookup *v;
	size_t n;
};

/* A request's budget, starting now. */
void file_lookups_init(struct file_lookups *l);
void file_lookups_free(struct file_lookups *l);
/* Whether the budget has time left; false also records why it stopped. */
bool file_lookups_time_left(struct file_lookups *l);
/*
 * The GNU build-id of @path under @root (elf_build_id), looked up once per
 * request: later calls answer from the first. Returns its length, or 0
 * when it has none, cannot be read, or the budget is spent (->stopped).
 */
size_t file_lookups_build_id(struct file_lookups *l, const char *root, const char *path,
			     unsigned char id[ELF_BUILD_ID_MAX]);
/*
 * The function at file offset @off of @path under @root (elf_symbolize,
 * without its "+0x.." part), into @out: 0, -1 when no symbol covers it
 * or the file cannot be read, FILE_LOOKUPS_SPENT when the budget was spent
 * before the file was opened (->stopped): then nothing is known of it.
 * Each call opens the file once.
 */
#define FILE_LOOKUPS_SPENT (-2)
int file_lookups_symbol(struct file_lookups *l, const char *root, const char *path, uint64_t off,
			char *out, size_t len);

/* elf_imports_any(@root, @path, @names), the file counted against the
 * budget; -1 (unknown) also when the budget is spent (->stopped). */
int file_lookups_imports(struct file_lookups *l, const char *root, const char *path,
			 const char *names);

#endif
