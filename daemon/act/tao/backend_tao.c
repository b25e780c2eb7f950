// SPDX-License-Identifier: GPL-2.0
/*
 * The TAO-kernel backend: memory.thp_zones takes policy zones away from a
 * cgroup (restrict) or gives them back (grant); memory.thp_shatter shatters
 * a cgroup's partially mapped THPs within a byte budget; zone sizing moves
 * memory blocks (zone_sizing.c). Collapse is the same as on stock.
 *
 * Each lever acts only where the kernel has its file (kernel_probe.h). The
 * public TAO code has boot-sized zones and none of those files: there a
 * split request on a folio in a policy zone shatters it, so shatter goes
 * through the stock split path and reads the vmstat deltas; restrict,
 * grant and hotplug sizing are unsupported, and say why.
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "act/stock/thp_collapse.h"
#include "act/read/thp_chunks.h"
#include "split_shatter.h"
#include "zone_sizing.h"
#include "common/cgroup_dir.h"
#include "account/memstat.h"
#include "common/rootfs.h"
#include "account/machine_stats.h"

static uint64_t lookup(const char *text, const char *key)
{
	uint64_t v = 0;

	return kv_lookup_u64(text, key, &v) ? 0 : v;
}

/* "NoSplit" in zoneinfo is "nosplit" in memory.thp_zones. */
static void lower(char *dst, size_t len, const char *src)
{
	size_t i = 0;

	for (; src[i] && i + 1 < len; i++)
		dst[i] = (char)tolower((unsigned char)src[i]);
	dst[i] = '\0';
}

static void write_thp_zones(const struct act_ctx *c, const struct action_request *req,
			    const char *value, struct act_outcome *o)
{
	const char *file = c->k->memcg_thp_zones;
	char now[128];
	int r;

	if (cgroup_file_read(c->tree, req->cgroup, file, now, sizeof(now)) >= 0) {
		now[strcspn(now, "\n")] = '\0';
		if (!strcmp(now, value)) {
			act_outcome_set(o, RESULT_DONE, 0, "%s already \"%s\"",
					c->k->memcg_thp_zones, value);
			return;
		}
	}
	/* An empty list is written as a bare newline, as `echo >` would. */
	r = cgroup_file_write(c->tree, req->cgroup, file, *value ? value : "\n");
	if (r)
		act_outcome_set(o, RESULT_FAILED, -r, "writing \"%s\" to %s: %s", value,
				c->k->memcg_thp_zones, strerror(-r));
	else
		act_outcome_set(o, RESULT_DONE, 0, "wrote \"%s\" to %s", value,
				c->k->memcg_thp_zones);
}

/* True (with @o set) when the kernel lacks @f: nothing was written. */
static bool lacks(const struct act_ctx *c, const struct action_request *req, enum tao_feature f,
		  const char *instead, struct act_outcome *o)
{
	if (kernel_has(c->kernel, f))
		return false;
	act_outcome_set(o, RESULT_UNSUPPORTED, 0, "%s unsupported: %s%s",
			action_kind_name(req->kind), c->kernel->feat[f].why, instead);
	o->kernel_untouched = true;
	return true;
}

static void tao_restrict(const struct act_ctx *c, const struct action_request *req, uint64_t budget,
			 struct act_outcome *o)
{
	(void)budget;
	if (!lacks(c, req, TAO_MEMCG_THP_ZONES, "", o))
		write_thp_zones(c, req, "", o);
}

static void tao_grant(const struct act_ctx *c, const struct action_request *req, uint64_t budget,
		      struct act_outcome *o)
{
	char ns[TAOD_NAME_MAX], nm[TAOD_NAME_MAX], both[2 * TAOD_NAME_MAX + 2];

	(void)budget;
	if (lacks(c, req, TAO_MEMCG_THP_ZONES, "", o))
		return;
	lower(ns, sizeof(ns), c->k->zone_nosplit);
	lower(nm, sizeof(nm), c->k->zone_nomerge);
	snprintf(both, sizeof(both), "%s %s", ns, nm);
	write_thp_zones(c, req, both, o);
}

/* Modelled on memory.reclaim: EAGAIN means fewer bytes than asked. */
static void tao_shatter(const struct act_ctx *c, const struct action_request *req, uint64_t budget,
			struct act_outcome *o)
{
	char value[32];
	int r;

	if (!kernel_has(c->kernel, TAO_MEMCG_THP_SHATTER)) {
		tao_split_shatter(c, req, budget, o);
		return;
	}
	snprintf(value, sizeof(value), "%llu", (unsigned long long)budget);
	r = cgroup_file_write(c->tree, req->cgroup, c->k->memcg_thp_shatter, value);
	o->bytes = r && r != -EAGAIN ? 0 : budget;
	if (r == -EAGAIN)
		act_outcome_set(o, RESULT_DONE, EAGAIN,
				"partial: fewer than %s bytes shattered via %s", value,
				c->k->memcg_thp_shatter);
	else if (r)
		act_outcome_set(o, RESULT_FAILED, -r, "writing %s to %s: %s", value,
				c->k->memcg_thp_shatter, strerror(-r));
	else
		act_outcome_set(o, RESULT_DONE, 0, "wrote %s to %s", value,
				c->k->memcg_thp_shatter);
}

static void tao_resize(const struct act_ctx *c, const struct action_request *req, uint64_t budget,
		       struct act_outcome *o)
{
	struct zone_targets t;

	(void)budget;
	if (lacks(c, req, TAO_HOTPLUG_ZONES, "; the zones are sized at boot (see taoctl zones)", o))
		return;
	zone_plan(c->s, req->bytes, &t);
	zone_resize(c, &t, o);
}

/* Boot-sized zones: their present pages in zoneinfo, summed over nodes. */
static int zone_present_bytes(const struct act_ctx *c, struct act_stats *out)
{
	struct machine_stats *m = calloc(1, sizeof(*m));
	char *text = malloc(1 << 20);
	int r = m && text ? 0 : -ENOMEM;

	if (!r && rootfs_read(c->k->zoneinfo, text, 1 << 20) > 0)
		machine_parse_zoneinfo(text, m);
	for (size_t i = 0; !r && i < m->nzones; i++) {
		uint64_t bytes = m->zones[i].present_pages * 4096;

		if (!strcmp(m->zones[i].name, c->k->zone_nosplit))
			out->nosplit_bytes += bytes;
		else if (!strcmp(m->zones[i].name, c->k->zone_nomerge))
			out->nomerge_bytes += bytes;
	}
	free(m);
	free(text);
	return r;
}

static int tao_read_stats(const struct act_ctx *c, struct act_stats *out)
{
	static char text[1 << 16];

	memset(out, 0, sizeof(*out));
	out->tao = true;
	if (rootfs_read(c->k->vmstat, text, sizeof(text)) < 0)
		return -ENOENT;
	out->pgalloc_nosplit = lookup(text, "pgalloc_nosplit");
	out->pgalloc_nomerge = lookup(text, "pgalloc_nomerge");
	out->thp_shatter_page = lookup(text, "thp_shatter_page");
	out->thp_shatter_page_failed = lookup(text, "thp_shatter_page_failed");
	out->thp_shatter_page_discarded = lookup(text, "thp_shatter_page_discarded");
	out->hvo_counted = kernel_has(c->kernel, TAO_HVO_COUNTER);
	out->thp_hvo_page = lookup(text, "thp_hvo_page");
	out->hvo_saved_bytes = out->thp_hvo_page * HVO_SAVED_PER_THP;
	if (!kernel_has(c->kernel, TAO_HOTPLUG_ZONES))
		return zone_present_bytes(c, out);
	zone_online_bytes(c, c->k->zone_nosplit, &out->nosplit_bytes, &out->block_bytes);
	zone_online_bytes(c, c->k->zone_nomerge, &out->nomerge_bytes, NULL);
	return 0;
}

int act_cgroup_stats_parse(const char *text, struct act_cgroup_stats *out)
{
	memset(out, 0, sizeof(*out));
	out->thp_split_page = lookup(text, "thp_split_page");
	out->thp_shatter_page = lookup(text, "thp_shatter_page");
	out->nosplit_thp = lookup(text, "nosplit_thp");
	out->nomerge_thp = lookup(text, "nomerge_thp");
	out->hvo_saved_bytes = out->nomerge_thp / THP_BYTES * HVO_SAVED_PER_THP;
	return 0;
}

const struct act_backend_ops backend_tao_ops = {
    .name = "tao",
    .shatter_needs_debugfs = true,
    .op =
	{
	    [ACTION_RESTRICT] = tao_restrict,
	    [ACTION_GRANT] = tao_grant,
	    [ACTION_SHATTER] = tao_shatter,
	    [ACTION_COLLAPSE] = thp_collapse_cgroup,
	    [ACTION_RESIZE_ZONES] = tao_resize,
	},
    .read_stats = tao_read_stats,
};
