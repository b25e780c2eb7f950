// SPDX-License-Identifier: GPL-2.0
/* The stock restrict's state files (restrict_state.h). */
#define _GNU_SOURCE
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "common/cgroup_path.h"
#include "common/log.h"
#include "common/parse.h"
#include "common/state_files.h"
#include "restrict_state.h"

static int write_state(FILE *f, const void *ctx)
{
	const struct restriction *s = ctx;

	fprintf(f,
		"id=%" PRIu64 "\nfile=%s\noriginal=%s\nset=%" PRIu64 "\nuntil_ms=%" PRIu64
		"\ncgroup=%s",
		s->id, s->file, s->original, s->set, s->until_ms, s->cgroup);
	return ferror(f) ? -EIO : 0;
}

int restrict_state_save(const char *dir, const struct restriction *s, char *why, size_t len)
{
	char path[PATH_MAX];
	int fd, r;

	if (snprintf(path, sizeof(path), "%s/%" PRIu64, dir, s->id) >= (int)sizeof(path)) {
		snprintf(why, len, "%s: %s", dir, strerror(ENAMETOOLONG));
		return -ENAMETOOLONG;
	}
	r = make_parent_dirs(path, 0700);
	fd = r ? r : private_dir_open(dir, why, len);
	if (fd < 0) {
		if (r)
			snprintf(why, len, "%s: %s", dir, strerror(-r));
		return fd;
	}
	close(fd);
	r = replace_file_atomically(path, 0600, write_state, s);
	if (r)
		snprintf(why, len, "%s: %s", path, strerror(-r));
	return r;
}

/* One "key=value\n" field; @len 0: a number into @num. @key names it in @why. */
static int field(const char **p, const char *key, char *out, size_t len, uint64_t *num, char *why,
		 size_t why_len)
{
	size_t k = strlen(key), n;
	char buf[32];

	snprintf(why, why_len, "field %s= missing or malformed", key);
	if (strncmp(*p, key, k) || (*p)[k] != '=')
		return -EINVAL;
	*p += k + 1;
	n = strcspn(*p, "\n");
	if (!(*p)[n] || n >= (len ? len : sizeof(buf)))
		return -EINVAL;
	memcpy(len ? out : buf, *p, n);
	(len ? out : buf)[n] = '\0';
	*p += n + 1;
	return len ? 0 : parse_u64(buf, num);
}

/* The fields taod acts on are checked: the file written, the value, the cgroup. */
static int check(const struct restriction *s, uint64_t id, const char *file, char *why, size_t len)
{
	uint64_t v;

	if (s->id != id)
		snprintf(why, len, "field id=%" PRIu64 " is not the file's name", s->id);
	else if (strcmp(s->file, file))
		snprintf(why, len, "field file=%s is not %s", s->file, file);
	else if (strcmp(s->original, "max") && parse_u64(s->original, &v))
		snprintf(why, len, "field original=%s is neither max nor a number", s->original);
	else if (!cgroup_path_canonical(s->cgroup, NULL, 0))
		snprintf(why, len, "field cgroup= is not a canonical cgroup path");
	else
		return 0;
	return -EINVAL;
}

/* Reads the state @name (cgroup @id's) under the directory @dirfd. */
static int load_at(int dirfd, const char *name, uint64_t id, const char *file,
		   struct restriction *s, char *why, size_t len)
{
	static char text[PATH_MAX + 256];
	const char *p = text;
	ssize_t n = private_file_read_at(dirfd, name, text, sizeof(text), why, len);

	if (n < 0)
		return (int)n;
	if (field(&p, "id", NULL, 0, &s->id, why, len) ||
	    field(&p, "file", s->file, sizeof(s->file), NULL, why, len) ||
	    field(&p, "original", s->original, sizeof(s->original), NULL, why, len) ||
	    field(&p, "set", NULL, 0, &s->set, why, len) ||
	    field(&p, "until_ms", NULL, 0, &s->until_ms, why, len))
		return -EINVAL;
	if (strncmp(p, "cgroup=", 7) || strlen(p + 7) >= sizeof(s->cgroup)) {
		snprintf(why, len, "field cgroup= missing or too long");
		return -EINVAL;
	}
	strcpy(s->cgroup, p + 7);
	return check(s, id, file, why, len);
}

int restrict_state_load(const char *dir, uint64_t id, const char *file, struct restriction *s,
			char *why, size_t len)
{
	char name[24];
	int fd = private_dir_open(dir, why, len), r;

	if (fd < 0)
		return fd;
	snprintf(name, sizeof(name), "%" PRIu64, id);
	r = load_at(fd, name, id, file, s, why, len);
	close(fd);
	return r;
}

void restrict_state_forget(const char *dir, uint64_t id)
{
	char path[PATH_MAX];

	snprintf(path, sizeof(path), "%s/%" PRIu64, dir, id);
	unlink(path);
}

/* A state file's name is its cgroup's id, in decimal. */
static bool id_name(const char *s, uint64_t *id)
{
	for (const char *c = s; *c; c++)
		if (!isdigit((unsigned char)*c))
			return false;
	return !parse_u64(s, id);
}

int restrict_state_each(const char *dir, const char *file, restriction_fn fn, void *ctx)
{
	struct restriction s;
	struct dirent *e;
	char why[PATH_MAX + 64];
	int fd = dir[0] ? private_dir_open(dir, why, sizeof(why)) : -ENOENT, n = 0;
	uint64_t id;
	DIR *d;

	if (fd == -EPERM || (fd < 0 && fd != -ENOENT))
		log_warn("stock_restrict_state refused: %s; nothing under it is put back", why);
	d = fd < 0 ? NULL : fdopendir(fd);
	if (!d) {
		if (fd >= 0)
			close(fd);
		return 0;
	}
	while ((e = readdir(d))) {
		if (!id_name(e->d_name, &id))
			continue;
		if (load_at(dirfd(d), e->d_name, id, file, &s, why, sizeof(why))) {
			/* Nothing could be put back from it: said, and removed. */
			log_warn("%s/%s: not a restriction taod saved (%s); removed", dir,
				 e->d_name, why);
			unlinkat(dirfd(d), e->d_name, 0);
			continue;
		}
		n += fn(ctx, &s);
	}
	closedir(d);
	return n;
}
