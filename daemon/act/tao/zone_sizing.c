// SPDX-License-Identifier: GPL-2.0
/*
 * Sizing the TAO policy zones by moving memory blocks through the memory
 * hotplug files: offline a block, then online it into NoSplit, NoMerge or
 * back into Movable. Only blocks of those three zones (or offline blocks
 * that may join the wanted zone) move; Normal and DMA blocks are never
 * touched. A block that answers EBUSY is skipped and backs off; free memory
 * outside the policy zones never drops below the configured floor.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "zone_sizing.h"
#include "act/backoff.h"
#include "common/rootfs.h"

#define ZONE_MOVABLE "Movable" /* the stock kernel's name */

struct mem_block {
	int id;
	bool online;
	char zones[128]; /* valid_zones: the zone of an online block */
};

struct block_list {
	struct mem_block *v;
	size_t n;
	uint64_t block_size;
	char dir[PATH_MAX]; /* memory_blocks, root prefix included */
};

/* What one resize did, for the outcome. */
struct move_tally {
	int moved, busy, failed, err;
	bool floor_hit;
	int64_t general_free; /* bytes free outside the policy zones, estimated */
};

void zone_plan(const struct act_settings *s, uint64_t demand, struct zone_targets *t)
{
	uint64_t want;

	/* Saturate below ZONE_KEEP, which would read as "leave it alone". */
	if (__builtin_add_overflow(demand, s->zone_headroom, &want) || want == ZONE_KEEP)
		want = ZONE_KEEP - 1;
	if (want < s->zone_min)
		want = s->zone_min;
	if (s->zone_max && want > s->zone_max)
		want = s->zone_max;
	t->nosplit = want;
	t->nomerge = ZONE_KEEP; /* its size is set by explicit targets only */
}

static bool has_zone(const char *zones, const char *zone)
{
	size_t n = strlen(zone);

	for (const char *p = zones; (p = strstr(p, zone)); p += n)
		if ((p == zones || p[-1] == ' ') && (p[n] == '\0' || p[n] == ' ' || p[n] == '\n'))
			return true;
	return false;
}

static int block_filter(const struct dirent *d)
{
	return !strncmp(d->d_name, "memory", 6) && d->d_name[6] >= '0' && d->d_name[6] <= '9';
}

static int read_block(struct block_list *bl, const char *name, struct mem_block *b)
{
	char path[PATH_MAX + 64], text[256];

	b->id = atoi(name + 6);
	snprintf(path, sizeof(path), "%s/%s/state", bl->dir, name);
	if (read_file(path, text, sizeof(text)) < 0)
		return -ENOENT;
	b->online = !strncmp(text, "online", 6);
	snprintf(path, sizeof(path), "%s/%s/valid_zones", bl->dir, name);
	if (read_file(path, b->zones, sizeof(b->zones)) < 0)
		return -ENOENT;
	b->zones[strcspn(b->zones, "\n")] = '\0';
	return 0;
}

static int compare_desc(const void *a, const void *b)
{
	const struct mem_block *x = a, *y = b;

	return y->id - x->id;
}

/* Highest block first: Movable memory sits at the top of physical memory. */
static int read_blocks(const struct act_ctx *c, struct block_list *bl)
{
	char path[PATH_MAX + 32], text[64];
	struct dirent **names;
	int n, r;

	memset(bl, 0, sizeof(*bl));
	r = rootfs_path(bl->dir, sizeof(bl->dir), c->k->memory_blocks);
	if (r)
		return r;
	snprintf(path, sizeof(path), "%s/block_size_bytes", bl->dir);
	if (read_file(path, text, sizeof(text)) <= 0)
		return -ENOENT;
	bl->block_size = strtoull(text, NULL, 16);
	/* A power of two no larger than 1 TiB, or block arithmetic could wrap. */
	if (!bl->block_size || bl->block_size & (bl->block_size - 1) || bl->block_size > 1ULL << 40)
		return -EINVAL;
	n = scandir(bl->dir, &names, block_filter, alphasort);
	if (n < 0)
		return -errno;
	bl->v = calloc((size_t)n + 1, sizeof(*bl->v));
	for (int i = 0; i < n; i++) {
		if (bl->v && !read_block(bl, names[i]->d_name, &bl->v[bl->n]))
			bl->n++;
		free(names[i]);
	}
	free(names);
	if (!bl->v)
		return -ENOMEM;
	qsort(bl->v, bl->n, sizeof(*bl->v), compare_desc);
	return 0;
}

static uint64_t zone_blocks(const struct block_list *bl, const char *zone)
{
	uint64_t n = 0;

	for (size_t i = 0; i < bl->n; i++)
		n += bl->v[i].online && has_zone(bl->v[i].zones, zone);
	return n;
}

int zone_online_bytes(const struct act_ctx *c, const char *zone, uint64_t *out,
		      uint64_t *block_size)
{
	struct block_list bl;
	int r = read_blocks(c, &bl);

	if (!r)
		*out = zone_blocks(&bl, zone) * bl.block_size;
	if (!r && block_size)
		*block_size = bl.block_size;
	free(bl.v);
	return r;
}

/* Free bytes in zones other than the policy zones, from zoneinfo. */
static int64_t general_free_bytes(const struct act_ctx *c)
{
	char path[PATH_MAX], *line = NULL;
	bool policy = false;
	int64_t pages = 0;
	size_t cap = 0;
	FILE *f;

	if (rootfs_path(path, sizeof(path), c->k->zoneinfo) || !(f = fopen(path, "re")))
		return -1; /* unknown: no block leaves general use */
	while (getline(&line, &cap, f) > 0) {
		char zone[64];
		long long v;

		if (sscanf(line, "Node %*d, zone %63s", zone) == 1)
			policy =
			    !strcmp(zone, c->k->zone_nosplit) || !strcmp(zone, c->k->zone_nomerge);
		else if (!policy && sscanf(line, " pages free %lld", &v) == 1 && v > 0 &&
			 __builtin_add_overflow(pages, v, &pages))
			pages = INT64_MAX;
	}
	free(line);
	fclose(f);
	if (__builtin_mul_overflow(pages, (int64_t)sysconf(_SC_PAGESIZE), &pages))
		return INT64_MAX;
	return pages;
}

static int write_state(const struct block_list *bl, int id, const char *value)
{
	char path[PATH_MAX + 64];

	snprintf(path, sizeof(path), "%s/memory%d/state", bl->dir, id);
	return write_file(path, value);
}

static const char *online_value(const struct act_ctx *c, const char *zone)
{
	if (!strcmp(zone, c->k->zone_nosplit))
		return c->k->state_online_nosplit;
	if (!strcmp(zone, c->k->zone_nomerge))
		return c->k->state_online_nomerge;
	return c->k->state_online_movable;
}

static void note_error(const struct act_ctx *c, struct move_tally *t, const char *key, int r)
{
	if (r == -EBUSY) {
		t->busy++;
		backoff_fail(c->busy_blocks, key, c->now_ms());
		return;
	}
	t->failed++;
	t->err = -r;
}

/* Offline (when online) and online into @zone. */
static bool move_block(const struct act_ctx *c, const struct block_list *bl, struct mem_block *b,
		       const char *zone, struct move_tally *t)
{
	char key[32], from[128];
	int r;

	snprintf(key, sizeof(key), "memory%d", b->id);
	snprintf(from, sizeof(from), "%s", b->zones);
	if (b->online) {
		r = write_state(bl, b->id, c->k->state_offline);
		if (r) {
			note_error(c, t, key, r);
			return false;
		}
	}
	r = write_state(bl, b->id, online_value(c, zone));
	if (r) {
		note_error(c, t, key, r);
		if (b->online) /* put it back where it was */
			write_state(bl, b->id, online_value(c, from));
		return false;
	}
	backoff_clear(c->busy_blocks, key);
	b->online = true;
	snprintf(b->zones, sizeof(b->zones), "%s", zone);
	t->moved++;
	return true;
}

static bool block_resting(const struct act_ctx *c, const struct mem_block *b)
{
	char key[32];

	snprintf(key, sizeof(key), "memory%d", b->id);
	return backoff_wait_ms(c->busy_blocks, key, c->now_ms()) > 0;
}

/* Room under the floor for one more block taken from general use. */
static bool above_floor(const struct act_ctx *c, const struct block_list *bl, struct move_tally *t)
{
	uint64_t avail = t->general_free < 0 ? 0 : (uint64_t)t->general_free;

	if (t->general_free < 0 || avail < bl->block_size ||
	    avail - bl->block_size < c->s->free_floor) {
		t->floor_hit = true;
		return false;
	}
	return true;
}

static uint64_t grow(const struct act_ctx *c, struct block_list *bl, const char *zone,
		     uint64_t need, struct move_tally *t)
{
	uint64_t done = 0;

	/* Offline blocks that may join the zone cost no free memory. */
	for (size_t i = 0; i < bl->n && done < need; i++) {
		struct mem_block *b = &bl->v[i];

		if (!b->online && has_zone(b->zones, zone) && !block_resting(c, b))
			done += move_block(c, bl, b, zone, t);
	}
	for (size_t i = 0; i < bl->n && done < need; i++) {
		struct mem_block *b = &bl->v[i];

		if (!b->online || strcmp(b->zones, ZONE_MOVABLE) || block_resting(c, b))
			continue;
		if (!above_floor(c, bl, t))
			break;
		if (move_block(c, bl, b, zone, t)) {
			done++;
			t->general_free -= (int64_t)bl->block_size;
		}
	}
	return done;
}

/* Shrinking migrates the zone's pages out, so it needs the floor too. */
static uint64_t shrink(const struct act_ctx *c, struct block_list *bl, const char *zone,
		       uint64_t excess, struct move_tally *t)
{
	uint64_t done = 0;

	for (size_t i = 0; i < bl->n && done < excess; i++) {
		struct mem_block *b = &bl->v[i];

		if (!b->online || strcmp(b->zones, zone) || block_resting(c, b))
			continue;
		if (!above_floor(c, bl, t))
			break;
		if (move_block(c, bl, b, ZONE_MOVABLE, t)) {
			done++;
			if (__builtin_add_overflow(t->general_free, (int64_t)bl->block_size,
						   &t->general_free))
				t->general_free = INT64_MAX;
		}
	}
	return done;
}

/* Moves one zone towards @target; appends what happened to @detail. */
static bool resize_one(const struct act_ctx *c, struct block_list *bl, const char *zone,
		       uint64_t target, struct move_tally *t, char *detail, size_t len)
{
	uint64_t have = zone_blocks(bl, zone), want, done = 0;
	size_t off = strlen(detail);

	if (target == ZONE_KEEP) {
		snprintf(detail + off, len - off, "%s%s kept at %llu blocks", off ? "; " : "", zone,
			 (unsigned long long)have);
		return true;
	}
	want = target / bl->block_size + (target % bl->block_size != 0);
	if (want > have)
		done = grow(c, bl, zone, want - have, t);
	else if (want < have)
		done = shrink(c, bl, zone, have - want, t);
	snprintf(detail + off, len - off, "%s%s %llu -> %llu blocks (target %llu)", off ? "; " : "",
		 zone, (unsigned long long)have, (unsigned long long)zone_blocks(bl, zone),
		 (unsigned long long)want);
	return done == (want > have ? want - have : have - want);
}

static void resize_outcome(struct act_outcome *o, bool reached, const struct move_tally *t,
			   const char *detail)
{
	if (reached)
		act_outcome_set(o, RESULT_DONE, 0, "%s", detail);
	else if (t->busy)
		act_outcome_set(o, RESULT_FAILED, EBUSY, "%s; %d busy blocks, retried later",
				detail, t->busy);
	else if (t->floor_hit)
		act_outcome_set(o, RESULT_FAILED, ENOMEM, "%s; stopped at the free floor", detail);
	else if (t->failed)
		act_outcome_set(o, RESULT_FAILED, t->err, "%s; %d writes failed", detail,
				t->failed);
	else
		act_outcome_set(o, RESULT_FAILED, ENOSPC, "%s; no block can move", detail);
}

void zone_resize(const struct act_ctx *c, const struct zone_targets *tg, struct act_outcome *o)
{
	struct move_tally t = {0};
	struct block_list bl;
	char detail[224] = "";
	bool reached;
	int r = read_blocks(c, &bl);

	if (r) {
		act_outcome_set(o, RESULT_FAILED, -r, "cannot read memory blocks in %s: %s",
				c->k->memory_blocks, strerror(-r));
		free(bl.v);
		return;
	}
	t.general_free = general_free_bytes(c);
	reached = resize_one(c, &bl, c->k->zone_nosplit, tg->nosplit, &t, detail, sizeof(detail));
	reached &= resize_one(c, &bl, c->k->zone_nomerge, tg->nomerge, &t, detail, sizeof(detail));
	o->bytes = (uint64_t)t.moved * bl.block_size;
	resize_outcome(o, reached, &t, detail);
	free(bl.v);
}
