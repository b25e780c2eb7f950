/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The THP memory tenants held at their peak in the history: what a
 * restarted taod keeps as the floor of its boot-zone recommendation
 * (taoctl zones). Defined in history_peak.c.
 */
#ifndef TAOD_HISTORY_PEAK_H
#define TAOD_HISTORY_PEAK_H

#include <stdint.h>

#include "history.h"

/*
 * The largest THP bytes held in one batch since @since_wall_ms: the root
 * cgroup's figure where it has one (v1: hierarchical), else the sum over
 * the root's children (v2: the root has no memory.stat, its children's
 * figures hold everything below them). 0 with *@bytes 0 when no batch has
 * one, or -EIO. *@at_wall_ms is that batch's time.
 */
int history_thp_peak(struct history *h, uint64_t since_wall_ms, uint64_t *bytes,
		     uint64_t *at_wall_ms);

#endif
