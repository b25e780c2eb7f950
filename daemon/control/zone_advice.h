/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Boot-zone TAO kernels size NoSplit and NoMerge only at boot
 * (nosplit=<bytes>,<order> and nomerge=<bytes>,<order> on the kernel
 * command line). This is the recommendation for the next boot, from the
 * THP demand of every tenant (what they hold now, what guarantees promise
 * beyond it, and their peak over the history window), the THP order mix
 * and the zones' own use, and the kernel's rules for accepting it.
 */
#ifndef TAOD_ZONE_ADVICE_H
#define TAOD_ZONE_ADVICE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "config/config.h"

#define ZONE_ADVICE_ORDERS 16
/* MAX_ORDER of the kernels that carry the code (6.6: orders 0..10). */
#define TAO_MAX_ORDER 10

/* One zone's boot parameter: bytes 0 means the zone is not asked for. */
struct zone_param {
	uint64_t bytes;
	int order;
	char why[384]; /* each rule that shaped it, in order */
};

/* One policy zone as the kernel shows it now, summed over nodes. */
struct zone_use {
	bool present;
	int order; /* zoneinfo's `order` line; -1 when absent */
	uint64_t present_bytes, free_bytes;
	uint64_t allocstall, pgskip, pgalloc; /* vmstat, since boot */
};

struct zone_advice_in {
	uint64_t mem_bytes;			   /* present pages of all zones */
	int pageblock_order;			   /* from hpage_pmd_size */
	uint64_t held_bytes;			   /* THP bytes all tenants hold now */
	uint64_t shortfall_bytes;		   /* guarantees' promise beyond that */
	uint64_t peak_bytes;			   /* held_bytes' peak over the window */
	uint64_t window_ms;			   /* that window ([history] retention) */
	unsigned cgroups, guaranteed;		   /* top-most cgroups counted; guaranteed */
	uint64_t headroom;			   /* [enforce] zone_headroom */
	uint64_t order_allocs[ZONE_ADVICE_ORDERS]; /* THP allocations by order */
	struct zone_use nosplit, nomerge;
	struct zone_param boot_nosplit, boot_nomerge; /* /proc/cmdline; bytes 0: none */
};

struct zone_advice {
	struct zone_param nosplit, nomerge;
	char cmdline[96]; /* "nosplit=512M,4 nomerge=1536M,9" */
};

/* Bytes the kernel rounds zone sizes to: MAX_ORDER_NR_PAGES base pages. */
uint64_t zone_rounding_bytes(void);
/*
 * Whether the kernel would keep @ns and @nm (either may have bytes 0:
 * not asked): order 2..TAO_MAX_ORDER and at most @pageblock_order, the
 * nomerge order above the nosplit order, sizes within @mem_bytes. 0, or
 * -EINVAL with the rule broken in @why.
 */
int zone_params_check(const struct zone_param *ns, const struct zone_param *nm, int pageblock_order,
		      uint64_t mem_bytes, char *why, size_t len);
/* The recommendation: 0, or -EINVAL when none the kernel accepts exists (@out->nosplit.why). */
int zone_advise(const struct zone_advice_in *in, struct zone_advice *out);
/* Parses nosplit=/nomerge= out of a kernel command line (NN% of @mem_bytes too). */
void zone_cmdline_parse(const char *cmdline, uint64_t mem_bytes, struct zone_param *ns,
			struct zone_param *nm);
/* Reads zoneinfo, vmstat, THP stats and cmdline under the root prefix into @in. */
int zone_advice_read(const struct kernel_paths *k, struct zone_advice_in *in);

#endif
