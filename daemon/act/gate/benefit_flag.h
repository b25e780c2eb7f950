/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Is an action kind worth what it costs? Per kind, the final benefits of
 * its last BENEFIT_FLAG_ACTIONS actions: when together they regained less
 * than a free PMD block per action and moved the wanting tenants' coverage
 * by less than a point, `taoctl status` flags the kind, with the numbers.
 */
#ifndef TAOD_ACT_BENEFIT_FLAG_H
#define TAOD_ACT_BENEFIT_FLAG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "taod/action_cost.h"

#define BENEFIT_FLAG_ACTIONS 3
#define BENEFIT_MIN_BLOCKS   1.0 /* free PMD blocks regained per action, mean */
#define BENEFIT_MIN_POINTS   1.0 /* coverage points gained by the wanting tenants, mean */

struct benefit_log {
	struct action_benefit last[BENEFIT_FLAG_ACTIONS];
	uint64_t cpu_us[BENEFIT_FLAG_ACTIONS]; /* each action's taod CPU time */
	unsigned n, head;
};

/* Notes an action's final benefit and what it cost taod (@cpu_us). */
void benefit_log_add(struct benefit_log *l, const struct action_benefit *b, uint64_t cpu_us);

/* The figures over the log's actions (all of them, up to BENEFIT_FLAG_ACTIONS). */
struct benefit_summary {
	unsigned actions;
	unsigned free_known;  /* of them, with free blocks read both times */
	double free_regained; /* mean over free_known */
	unsigned coverage_n;  /* of them, with a wanting tenant's coverage read */
	double coverage_gain; /* mean over coverage_n, points */
	double cpu_ms;	      /* mean */
};
void benefit_log_sum(const struct benefit_log *l, struct benefit_summary *s);

/*
 * true when the log is full and its benefit stays near zero; @why (may be
 * NULL) says so with the numbers, or why not.
 */
bool benefit_near_zero(const struct benefit_log *l, char *why, size_t len);

#endif
