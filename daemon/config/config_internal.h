/* SPDX-License-Identifier: GPL-2.0 */
/* State shared by the config reader's files while one load runs. */
#ifndef TAOD_CONFIG_INTERNAL_H
#define TAOD_CONFIG_INTERNAL_H

#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>

#include "config.h"

/* A configuration file may hold at most this many bytes (1 MiB). */
#define CONFIG_MAX_BYTES (1 << 20)

struct config_parse {
	struct taod_config *cfg;
	struct config_errors *errs;
	FILE *fp;
	char file[PATH_MAX];
	int line;
	int entries_on_line;
	char *raw;	   /* the physical line being read (getline) */
	char section[128]; /* the section that line is in, for long lines */
	size_t raw_cap;
	size_t bytes;		  /* read so far of this file: it may grow while read */
	struct config_seen *seen; /* this file's sections and keys so far */
	size_t nseen, seen_cap;
};

void config_error_add(struct config_parse *p, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
int config_parse_file(struct config_parse *p, const char *path);
/*
 * config_open.c: @path opened for reading if it is a regular file of at
 * most CONFIG_MAX_BYTES; else NULL with the reason recorded against
 * p->file (which the caller has set to @path).
 */
FILE *config_open(struct config_parse *p, const char *path);
/*
 * config_repeats.c: records [@section] @key (@key NULL: the section line)
 * at p->line; config_seen_check(), at the end of each file, records an
 * error for each section or key the file gave more than once.
 */
void config_seen_add(struct config_parse *p, const char *section, const char *key);
void config_seen_check(struct config_parse *p);

/* policy_config.c: [policy NAME] sections. */
bool config_is_policy_section(const char *section);
int config_policy_entry(struct config_parse *p, const char *section, const char *key,
			const char *value);
/* After every file: inherit from the default policy, check completeness. */
void config_policies_finish(struct config_parse *p);
/* A cgroup path glob: starts with '/' or '*'. */
bool config_glob_valid(const char *glob);

#endif
