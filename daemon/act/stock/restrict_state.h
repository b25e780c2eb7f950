/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The stock restrict's state (memory_limit.h): one file per cgroup under
 * stock_restrict_state, named by the cgroup's id (its inode, which a
 * rename on v1 keeps), holding what to put back. taod writes it as root
 * and acts on what it reads, so nothing is read from a directory or file
 * anyone else could have written, and every field is checked before use.
 */
#ifndef TAOD_RESTRICT_STATE_H
#define TAOD_RESTRICT_STATE_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* One restriction in force, as its state file keeps it. */
struct restriction {
	uint64_t id;	       /* the cgroup's inode: a cgroup made again is not it */
	char file[32];	       /* memory.high or memory.soft_limit_in_bytes */
	char original[32];     /* "max" or a number: what was there, written back */
	uint64_t set;	       /* what taod wrote */
	uint64_t until_ms;     /* monotonic: put back from then on */
	char cgroup[PATH_MAX]; /* where it was last seen; last in the file: any byte */
};

/*
 * Writes @s as the state of its id under @dir (made 0700 when missing; an
 * existing one must be taod's and writable by taod alone). 0, or -errno
 * with the reason in @why.
 */
int restrict_state_save(const char *dir, const struct restriction *s, char *why, size_t len);
/*
 * The state of cgroup @id under @dir, its limit file @file (the only one
 * accepted). 0, -ENOENT when there is none, or -errno with @why.
 */
int restrict_state_load(const char *dir, uint64_t id, const char *file, struct restriction *s,
			char *why, size_t len);
void restrict_state_forget(const char *dir, uint64_t id);

/* Called for each well-formed state; returns how many restrictions it put back. */
typedef int (*restriction_fn)(void *ctx, const struct restriction *s);
/*
 * Calls @fn for each state under @dir; a malformed one is logged, naming
 * the file and the field, and removed. Returns the sum of @fn's returns
 * (0 when @dir is missing or refused, which is logged).
 */
int restrict_state_each(const char *dir, const char *file, restriction_fn fn, void *ctx);

#endif
