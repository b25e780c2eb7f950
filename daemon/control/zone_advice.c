// SPDX-License-Identifier: GPL-2.0
/*
 * The boot-time zone recommendation (zone_advice.h). Rules, in order:
 *  1. orders: NoMerge takes pageblock_order (the PMD THPs, which get HVO
 *     there); NoSplit the smallest THP order below it that has 5 % or more
 *     of the THP allocations, else the boot's nosplit order if the kernel
 *     keeps it, else order 4 (64 KiB, the smallest common mTHP size);
 *  2. sizes: demand + headroom, split between the zones by the THP bytes
 *     allocated below and at pageblock_order (all to NoMerge unmeasured).
 *     Demand is every tenant's, not the guaranteed ones' alone: the THP
 *     bytes they hold now plus what guarantees promise beyond that, and
 *     never below the THP bytes they held at their peak over the history
 *     window. With no THP held nor promised, the boot sizes stay: an idle
 *     machine is no evidence that the zones are too big; nor is a zone
 *     whose order no measured THP has (it keeps its boot size);
 *  3. use: a zone that stalled allocations (allocstall) or has less than an
 *     eighth free grows to 5/4 of its present size; none shrinks below what
 *     it holds now;
 *  4. the two together stay within half of memory (scaled down);
 *  5. sizes round up to MAX_ORDER_NR_PAGES, as the kernel rounds them.
 * The result must pass zone_params_check, the kernel's own rules.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/parse.h"
#include "zone_advice.h"

#define PAGE 4096ULL
#define MIB  (1ULL << 20)

uint64_t zone_rounding_bytes(void)
{
	return (1ULL << TAO_MAX_ORDER) * PAGE;
}

static int check_one(const char *name, const struct zone_param *z, int pageblock_order,
		     uint64_t mem_bytes, char *why, size_t len)
{
	if (!z->bytes)
		return 0;
	if (z->order < 2 || z->order > TAO_MAX_ORDER) {
		snprintf(why, len, "%s order %d outside 2..%d", name, z->order, TAO_MAX_ORDER);
		return -EINVAL;
	}
	if (z->order > pageblock_order) {
		snprintf(why, len, "%s order %d above pageblock_order %d", name, z->order,
			 pageblock_order);
		return -EINVAL;
	}
	if (z->bytes > mem_bytes) {
		snprintf(why, len, "%s %llu MiB above memory (%llu MiB)", name,
			 (unsigned long long)(z->bytes / MIB),
			 (unsigned long long)(mem_bytes / MIB));
		return -EINVAL;
	}
	return 0;
}

int zone_params_check(const struct zone_param *ns, const struct zone_param *nm, int pageblock_order,
		      uint64_t mem_bytes, char *why, size_t len)
{
	int r = check_one("nosplit", ns, pageblock_order, mem_bytes, why, len);

	if (!r)
		r = check_one("nomerge", nm, pageblock_order, mem_bytes, why, len);
	if (r)
		return r;
	if (ns->bytes && nm->bytes && nm->order <= ns->order) {
		snprintf(
		    why, len,
		    "nomerge order %d must exceed nosplit order %d: the kernel drops both zones",
		    nm->order, ns->order);
		return -EINVAL;
	}
	if (ns->bytes + nm->bytes > mem_bytes) {
		snprintf(why, len, "nosplit + nomerge %llu MiB above memory (%llu MiB)",
			 (unsigned long long)((ns->bytes + nm->bytes) / MIB),
			 (unsigned long long)(mem_bytes / MIB));
		return -EINVAL;
	}
	return 0;
}

/* Rule 1 for NoSplit. */
static void pick_nosplit_order(const struct zone_advice_in *in, int pb, struct zone_param *ns)
{
	uint64_t total = 0;

	for (int o = 0; o < ZONE_ADVICE_ORDERS; o++)
		total += in->order_allocs[o];
	for (int o = 2; o < pb && total; o++) {
		if (in->order_allocs[o] * 20 >= total) {
			ns->order = o;
			snprintf(ns->why, sizeof(ns->why), "order %d has %llu%% of THP allocations",
				 o, (unsigned long long)(in->order_allocs[o] * 100 / total));
			return;
		}
	}
	if (in->boot_nosplit.bytes && in->boot_nosplit.order >= 2 && in->boot_nosplit.order < pb) {
		ns->order = in->boot_nosplit.order;
		snprintf(ns->why, sizeof(ns->why), "no THP order below %d in use: boot order kept",
			 pb);
		return;
	}
	ns->order = pb > 4 ? 4 : pb - 1;
	snprintf(ns->why, sizeof(ns->why), "no THP order below %d in use: order %d (64 KiB)", pb,
		 ns->order);
}

/* Rule 2: the THP bytes share of orders below pageblock_order, in 1/1000. */
static uint64_t small_share(const struct zone_advice_in *in, int pb, bool *measured)
{
	uint64_t small = 0, all = 0;

	for (int o = 0; o < ZONE_ADVICE_ORDERS; o++) {
		uint64_t bytes = in->order_allocs[o] << o;

		all += bytes;
		small += o < pb ? bytes : 0;
	}
	*measured = all > 0;
	return all ? small * 1000 / all : 0;
}

/* Rule 3: a zone's present use can only raise its size. */
static void apply_use(const char *name, const struct zone_use *u, struct zone_param *z)
{
	size_t n = strlen(z->why);
	uint64_t used;

	if (!u->present || !u->present_bytes)
		return;
	used = u->present_bytes > u->free_bytes ? u->present_bytes - u->free_bytes : 0;
	if (u->allocstall || u->free_bytes < u->present_bytes / 8) {
		uint64_t grown = u->present_bytes + u->present_bytes / 4;

		if (grown > z->bytes) {
			z->bytes = grown;
			snprintf(z->why + n, sizeof(z->why) - n,
				 "; %s under pressure (allocstall %llu, %llu of %llu MiB free): "
				 "grown by a quarter",
				 name, (unsigned long long)u->allocstall,
				 (unsigned long long)(u->free_bytes / MIB),
				 (unsigned long long)(u->present_bytes / MIB));
		}
	} else if (used > z->bytes) {
		z->bytes = used;
		snprintf(z->why + n, sizeof(z->why) - n, "; kept at the %llu MiB it holds",
			 (unsigned long long)(used / MIB));
	}
}

static uint64_t round_up(uint64_t v, uint64_t unit)
{
	return v ? (v + unit - 1) / unit * unit : 0;
}

/* Rules 4 and 5. */
static void bound(const struct zone_advice_in *in, struct zone_advice *out)
{
	uint64_t half = in->mem_bytes / 2, sum = out->nosplit.bytes + out->nomerge.bytes;

	if (sum > half) {
		out->nosplit.bytes = (uint64_t)((double)out->nosplit.bytes * half / sum);
		out->nomerge.bytes = half - out->nosplit.bytes;
		for (struct zone_param *z = &out->nosplit; z <= &out->nomerge; z++) {
			size_t n = strlen(z->why);

			snprintf(z->why + n, sizeof(z->why) - n, "; capped at half of memory");
		}
	}
	out->nosplit.bytes = round_up(out->nosplit.bytes, zone_rounding_bytes());
	out->nomerge.bytes = round_up(out->nomerge.bytes, zone_rounding_bytes());
	if (out->nosplit.bytes + out->nomerge.bytes > half) { /* rounding overshot */
		struct zone_param *big =
		    out->nomerge.bytes > out->nosplit.bytes ? &out->nomerge : &out->nosplit;

		big->bytes -= zone_rounding_bytes();
	}
}

static void format_cmdline(struct zone_advice *out)
{
	char *p = out->cmdline;
	size_t left = sizeof(out->cmdline);

	*p = '\0';
	if (out->nosplit.bytes) {
		int n =
		    snprintf(p, left, "nosplit=%lluM,%d",
			     (unsigned long long)(out->nosplit.bytes / MIB), out->nosplit.order);

		p += n, left -= (size_t)n;
	}
	if (out->nomerge.bytes)
		snprintf(p, left, "%snomerge=%lluM,%d", p == out->cmdline ? "" : " ",
			 (unsigned long long)(out->nomerge.bytes / MIB), out->nomerge.order);
}

/* Rule 2's demand: now (held + promised) or the window's peak, the larger. */
static uint64_t demand(const struct zone_advice_in *in)
{
	uint64_t now = in->held_bytes + in->shortfall_bytes;

	return now > in->peak_bytes ? now : in->peak_bytes;
}

/* Rule 2's why: what the demand was made of. */
static void say_demand(const struct zone_advice_in *in, uint64_t share, bool measured,
		       struct zone_param *z)
{
	size_t n = strlen(z->why);

	snprintf(z->why + n, sizeof(z->why) - n,
		 "; %llu.%llu%% of demand %llu MiB (THPs held by %u cgroups %llu MiB, "
		 "guarantees' shortfall %llu MiB, peak %llu MiB over %llu h) + headroom %llu "
		 "MiB%s",
		 (unsigned long long)share / 10, (unsigned long long)share % 10,
		 (unsigned long long)(demand(in) / MIB), in->cgroups,
		 (unsigned long long)(in->held_bytes / MIB),
		 (unsigned long long)(in->shortfall_bytes / MIB),
		 (unsigned long long)(in->peak_bytes / MIB),
		 (unsigned long long)(in->window_ms / 3600000),
		 (unsigned long long)(demand(in) ? in->headroom / MIB : 0),
		 measured ? "" : ", no THP order mix measured");
}

/* No THP held nor promised, ever in the window: the boot's sizes stay. */
static bool keep_boot(const struct zone_advice_in *in, struct zone_advice *out)
{
	const struct zone_param *boot[] = {&in->boot_nosplit, &in->boot_nomerge};
	struct zone_param *z[] = {&out->nosplit, &out->nomerge};

	if (demand(in) || (!in->boot_nosplit.bytes && !in->boot_nomerge.bytes))
		return false;
	for (int i = 0; i < 2; i++) {
		size_t n = strlen(z[i]->why);

		z[i]->bytes = boot[i]->bytes;
		snprintf(z[i]->why + n, sizeof(z[i]->why) - n,
			 "; no THP held by %u cgroups nor promised, none in the window: boot size "
			 "kept",
			 in->cgroups);
	}
	return true;
}

/* A zone no measured THP order asks for keeps the boot's size: no
 * evidence it is too big (the TAO guest's NoSplit, order 4, with no mTHP
 * enabled: its share was 0 and it shrank from 128 MiB to 4 MiB). */
static void keep_unasked(const struct zone_param *boot, uint64_t share, struct zone_param *z)
{
	size_t n = strlen(z->why);

	if (share || !boot->bytes || z->bytes >= boot->bytes || boot->order != z->order)
		return;
	z->bytes = boot->bytes;
	snprintf(z->why + n, sizeof(z->why) - n, "; no THP of its order measured: boot size kept");
}

int zone_advise(const struct zone_advice_in *in, struct zone_advice *out)
{
	int pb = in->pageblock_order;
	uint64_t want = demand(in) ? demand(in) + in->headroom : 0, share;
	bool measured;

	memset(out, 0, sizeof(*out));
	pick_nosplit_order(in, pb, &out->nosplit);
	out->nomerge.order = pb;
	snprintf(out->nomerge.why, sizeof(out->nomerge.why),
		 "pageblock_order %d: PMD-sized THPs, HVO in NoMerge", pb);
	share = small_share(in, pb, &measured);
	if (!keep_boot(in, out)) {
		out->nosplit.bytes = want / 1000 * share;
		out->nomerge.bytes = want - out->nosplit.bytes;
		say_demand(in, share, measured, &out->nosplit);
		say_demand(in, 1000 - share, measured, &out->nomerge);
		keep_unasked(&in->boot_nosplit, share, &out->nosplit);
		keep_unasked(&in->boot_nomerge, 1000 - share, &out->nomerge);
	}
	apply_use("NoSplit", &in->nosplit, &out->nosplit);
	apply_use("NoMerge", &in->nomerge, &out->nomerge);
	bound(in, out);
	format_cmdline(out);
	return zone_params_check(&out->nosplit, &out->nomerge, pb, in->mem_bytes, out->nosplit.why,
				 sizeof(out->nosplit.why));
}

/* "<bytes|NN%>,<order>", as the kernel's parse_zone_order takes it; a
 * percent over 100 or an order no int holds is no value (4294967300 is not 4). */
static void parse_value(const char *v, uint64_t mem_bytes, struct zone_param *z)
{
	char buf[64], *comma, *pct;
	uint64_t bytes, order, n;

	snprintf(buf, sizeof(buf), "%.*s", (int)strcspn(v, " \t\n"), v);
	comma = strchr(buf, ',');
	if (!comma)
		return;
	*comma = '\0';
	if (parse_u64(comma + 1, &order) || order > INT_MAX)
		return;
	pct = buf[0] ? buf + strlen(buf) - 1 : buf;
	if (*pct == '%') {
		*pct = '\0';
		if (parse_u64(buf, &n) || n > 100)
			return;
		*pct = '%';
		bytes = (uint64_t)((unsigned __int128)mem_bytes * n / 100);
	} else if (parse_size_bytes(buf, &bytes)) {
		return;
	}
	z->bytes = bytes;
	z->order = (int)order;
	snprintf(z->why, sizeof(z->why), "boot: %s,%d", buf, z->order);
}

void zone_cmdline_parse(const char *cmdline, uint64_t mem_bytes, struct zone_param *ns,
			struct zone_param *nm)
{
	memset(ns, 0, sizeof(*ns));
	memset(nm, 0, sizeof(*nm));
	for (const char *p = cmdline + strspn(cmdline, " \t\n"); *p; p += strspn(p, " \t\n")) {
		if (!strncmp(p, "nosplit=", 8))
			parse_value(p + 8, mem_bytes, ns);
		else if (!strncmp(p, "nomerge=", 8))
			parse_value(p + 8, mem_bytes, nm);
		p += strcspn(p, " \t\n");
	}
}
