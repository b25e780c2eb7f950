// SPDX-License-Identifier: GPL-2.0
#define _GNU_SOURCE
#include "cgroup_tree.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/log.h"
#include "common/rootfs.h"

#define COPY(dst, src) snprintf((dst), sizeof(dst), "%s", (src))

static bool has_option(const char *opts, const char *want)
{
	size_t n = strlen(want);

	for (const char *p = opts; p && *p; p = strchr(p, ',') ? strchr(p, ',') + 1 : NULL)
		if (!strncmp(p, want, n) && (p[n] == ',' || !p[n]))
			return true;
	return false;
}

/* Finds the v1 memory mount and the v2 mount in a mounts table. */
static void scan_mounts(const char *text, char *v1, char *v2, size_t len)
{
	char *copy = strdup(text), *save = NULL;

	v1[0] = v2[0] = '\0';
	for (char *line = strtok_r(copy, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char dev[256], dir[PATH_MAX], type[64], opts[1024];

		if (sscanf(line, "%255s %4095s %63s %1023s", dev, dir, type, opts) != 4)
			continue;
		if (!strcmp(type, "cgroup") && has_option(opts, "memory") && !v1[0])
			snprintf(v1, len, "%s", dir);
		else if (!strcmp(type, "cgroup2") && !v2[0])
			snprintf(v2, len, "%s", dir);
	}
	free(copy);
}

static int pick_mount(struct cgroup_tree *t, const struct taod_config *cfg, char *why,
		      size_t why_len)
{
	char text[65536], v1[PATH_MAX], v2[PATH_MAX];
	ssize_t n = rootfs_read(cfg->k.mounts, text, sizeof(text));

	if (n < 0) {
		snprintf(why, why_len, "cannot read %s: %s", cfg->k.mounts, strerror((int)-n));
		return (int)n;
	}
	scan_mounts(text, v1, v2, sizeof(v1));
	if (v1[0] && cfg->cgroup_version != 2) {
		t->version = 1;
		return rootfs_path(t->mount, sizeof(t->mount), v1);
	}
	if (v2[0] && cfg->cgroup_version != 1) {
		t->version = 2;
		return rootfs_path(t->mount, sizeof(t->mount), v2);
	}
	snprintf(why, why_len, "no %s memory cgroup mount in %s",
		 cfg->cgroup_version == 1   ? "v1"
		 : cfg->cgroup_version == 2 ? "v2"
					    : "v1 or v2",
		 cfg->k.mounts);
	return -ENOENT;
}

int cgroup_of_proc_text(const char *text, int version, char *out, size_t len)
{
	const char *line = text;

	while (line && *line) {
		const char *colon1 = strchr(line, ':');
		const char *colon2 = colon1 ? strchr(colon1 + 1, ':') : NULL;
		const char *eol = strchrnul(line, '\n');

		if (colon2 && colon2 < eol) {
			size_t clen = (size_t)(colon2 - colon1 - 1);
			char ctrls[256];
			bool match;

			snprintf(ctrls, sizeof(ctrls), "%.*s", (int)clen, colon1 + 1);
			match = version == 2 ? (line[0] == '0' && clen == 0)
					     : has_option(ctrls, "memory");
			/* The kernel ends every line with '\n': a line without one was
			 * cut by a short read, and a cut path names another cgroup. */
			if (match && (!*eol || eol - colon2 > (ptrdiff_t)len))
				return -ENAMETOOLONG;
			if (match) {
				snprintf(out, len, "%.*s", (int)(eol - colon2 - 1), colon2 + 1);
				return 0;
			}
		}
		line = *eol ? eol + 1 : NULL;
	}
	return -ENOENT;
}

/*
 * taod's own memory cgroup into @self: 1 when known whole, 0 when too deep
 * to name, -1 when /proc/self/cgroup could not be read at all (@self "/").
 */
static int read_self(int version, char *self, size_t len)
{
	char text[8192];
	ssize_t n;
	int r = 0;

	/* Under a fixture root, taod's own cgroup is the fixture's, if it says. */
	snprintf(self, len, "/");
	n = rootfs_read("/proc/self/cgroup", text, sizeof(text));
	if (n > 0)
		r = cgroup_of_proc_text(text, version, self, len);
	/* The kernel cuts a path of PATH_MAX or more, or fails the read. */
	if (n == -ENAMETOOLONG || n == -E2BIG || (n > 0 && r == -ENAMETOOLONG) ||
	    strlen(self) >= len - 1)
		return 0;
	return n > 0 ? 1 : -1;
}

bool cgroup_tree_read_self(struct cgroup_tree *t)
{
	char self[PATH_MAX];
	int r = read_self(t->version, self, sizeof(self));
	bool known = r != 0;

	/* A failed read (out of fds, say) keeps what was known: never "/" instead. */
	if (r < 0 && t->self[0])
		return false;
	if (known == !t->self_unknown && !strcmp(self, t->self))
		return false;
	if (!known)
		log_warn("taod's own memory cgroup is too deep for /proc/self/cgroup to name: "
			 "no cgroup is acted on");
	else if (t->self[0])
		log_notice("taod moved from cgroup %s to %s: that one and its ancestors are "
			   "protected now",
			   t->self_unknown ? "(unknown)" : t->self, self);
	COPY(t->self, self);
	t->self_unknown = !known;
	return true;
}

int cgroup_tree_detect(struct cgroup_tree *t, const struct taod_config *cfg, char *why,
		       size_t why_len)
{
	struct stat st;
	int r;

	memset(t, 0, sizeof(*t));
	if (strcmp(cfg->k.cgroup_root, "auto")) {
		t->version = cfg->cgroup_version ? cfg->cgroup_version : 2;
		r = rootfs_path(t->mount, sizeof(t->mount), cfg->k.cgroup_root);
	} else {
		r = pick_mount(t, cfg, why, why_len);
	}
	if (r)
		return r;
	if (stat(t->mount, &st) || !S_ISDIR(st.st_mode)) {
		snprintf(why, why_len, "cgroup root %s is not a directory", t->mount);
		return -ENOTDIR;
	}
	cgroup_tree_read_self(t);
	return 0;
}

/* The path of the directory being walked, grown as deep as the tree goes. */
struct walk_path {
	char *s;
	size_t len, cap;
};

/* Appends "/name" (or "name" at the root); false on ENOMEM. */
static bool walk_push(struct walk_path *p, const char *name)
{
	size_t n = strlen(name), need = p->len + n + 2;

	if (need > p->cap) {
		size_t cap = need * 2;
		char *s = realloc(p->s, cap);

		if (!s)
			return false;
		p->s = s;
		p->cap = cap;
	}
	if (p->len > 1)
		p->s[p->len++] = '/';
	memcpy(p->s + p->len, name, n + 1);
	p->len += n;
	return true;
}

/*
 * Whether directory @st may have subdirectories. kernfs (cgroupfs), ext4
 * and tmpfs count them in st_nlink (2 + subdirectories): a leaf, which
 * most cgroups are, then needs neither an open nor a readdir. A
 * filesystem that does not count them (nlink 1) is read.
 */
static bool may_have_subdirs(const struct stat *st)
{
	return st->st_nlink != 2;
}

static int walk_dir(int dirfd, struct walk_path *p, cgroup_visit_fn fn, void *ctx);

/* Subdirectory @name of @dirfd (@p its parent's path) and all below it:
 * -ENOENT when it vanished or is not a directory (a symlink is not followed). */
static int walk_entry(int dirfd, struct walk_path *p, const char *name, cgroup_visit_fn fn,
		      void *ctx)
{
	size_t at = p->len;
	struct stat st;
	int child, r;

	if (fstatat(dirfd, name, &st, AT_SYMLINK_NOFOLLOW) || !S_ISDIR(st.st_mode))
		return -ENOENT;
	if (!walk_push(p, name))
		return -ENOMEM;
	r = fn(ctx, (uint64_t)st.st_ino, p->s, dirfd, name);
	if (!r && may_have_subdirs(&st)) {
		child = openat(dirfd, name, O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NOFOLLOW);
		if (child >= 0)
			r = walk_dir(child, p, fn, ctx);
	}
	p->len = at;
	p->s[at] = '\0';
	return r;
}

/* Depth-first walk by directory fds: no path length or fd-count surprises. */
static int walk_dir(int dirfd, struct walk_path *p, cgroup_visit_fn fn, void *ctx)
{
	DIR *d = fdopendir(dirfd);
	struct dirent *de;
	int r = 0;

	if (!d) {
		close(dirfd);
		return 0;
	}
	while (!r && (de = readdir(d))) {
		if (de->d_name[0] == '.' || (de->d_type != DT_DIR && de->d_type != DT_UNKNOWN))
			continue;
		r = walk_entry(dirfd, p, de->d_name, fn, ctx);
		if (r == -ENOENT || r == -ENOMEM) /* vanished meanwhile; a path: as before */
			r = 0;
	}
	closedir(d);
	return r;
}

/* @fd (taken) is the directory of @rel: it, then all below it. */
static int walk_from(int fd, const char *rel, cgroup_visit_fn fn, void *ctx)
{
	struct walk_path p = {0};
	struct stat st;
	int r;

	if (fd < 0)
		return fd;
	if (fstat(fd, &st))
		r = -errno;
	else
		r = walk_push(&p, rel) ? fn(ctx, (uint64_t)st.st_ino, p.s, fd, ".") : -ENOMEM;
	/* A new leaf (what inotify mostly names) is not read either. */
	if (!r && may_have_subdirs(&st))
		r = walk_dir(fd, &p, fn, ctx);
	else
		close(fd);
	free(p.s);
	return r;
}

int cgroup_tree_walk(const struct cgroup_tree *t, cgroup_visit_fn fn, void *ctx)
{
	int fd = open(t->mount, O_RDONLY | O_DIRECTORY | O_CLOEXEC);

	return walk_from(fd < 0 ? -errno : fd, "/", fn, ctx);
}

int cgroup_subtree_walk(const struct cgroup_tree *t, const char *rel, cgroup_visit_fn fn, void *ctx)
{
	return walk_from(cgroup_dir_open(t, rel), rel, fn, ctx);
}

int cgroup_child_walk(int dirfd, const char *parent_rel, const char *name, cgroup_visit_fn fn,
		      void *ctx)
{
	struct walk_path p = {0};
	int r = walk_push(&p, parent_rel) ? walk_entry(dirfd, &p, name, fn, ctx) : -ENOMEM;

	free(p.s);
	return r;
}
