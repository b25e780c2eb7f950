/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A cgroup's evidence for the verdict, from its counters, and sums of it.
 * Defined in cg_evidence.c.
 */
#ifndef TAOD_CG_EVIDENCE_H
#define TAOD_CG_EVIDENCE_H

#include <stdint.h>

#include "cgroup_table.h"

/* The entry's own evidence plus what its removed descendants folded in. */
void cgroup_entry_evidence(const struct cgroup_entry *e, struct cg_evidence *out);
void cg_evidence_of(const struct taod_cg_counters *c, struct cg_evidence *out);
void cg_evidence_add(struct cg_evidence *to, const struct cg_evidence *e);

uint64_t cg_thp_allocs(const struct taod_cg_counters *c);

#endif
