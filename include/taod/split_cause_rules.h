/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * The rules that tell a PMD split's cause from what the splitting task is
 * doing (enum taod_split_cause): its syscall and arguments, or a kernel
 * thread's name. Pure functions shared by the BPF programs, which read the
 * registers and the name, and the unit tests, which check the tables.
 * Contract: bpf -> observe (rules run in BPF, tested in userspace).
 */
#ifndef TAOD_SPLIT_CAUSE_RULES_H
#define TAOD_SPLIT_CAUSE_RULES_H

#include "taod/thp_observe.h"

#ifdef __bpf__
#define TAOD_RULE static __always_inline
#else
#include <linux/types.h>
#define TAOD_RULE static inline
#endif

/* Syscall numbers of each architecture's unistd.h that split THPs. */
#if defined(__TARGET_ARCH_arm64) || defined(__aarch64__)
enum {
	TAOD_NR_EXIT = 93,
	TAOD_NR_EXIT_GROUP = 94,
	TAOD_NR_BRK = 214,
	TAOD_NR_MUNMAP = 215,
	TAOD_NR_MREMAP = 216,
	TAOD_NR_MPROTECT = 226,
	TAOD_NR_MADVISE = 233,
	TAOD_NR_MBIND = 235,
	TAOD_NR_MIGRATE_PAGES = 238,
	TAOD_NR_MOVE_PAGES = 239,
	TAOD_NR_PKEY_MPROTECT = 288,
	TAOD_NR_PROCESS_MADVISE = 440,
};
#else
enum {
	TAOD_NR_MPROTECT = 10,
	TAOD_NR_MUNMAP = 11,
	TAOD_NR_BRK = 12,
	TAOD_NR_MREMAP = 25,
	TAOD_NR_MADVISE = 28,
	TAOD_NR_EXIT = 60,
	TAOD_NR_EXIT_GROUP = 231,
	TAOD_NR_MBIND = 237,
	TAOD_NR_MIGRATE_PAGES = 256,
	TAOD_NR_MOVE_PAGES = 279,
	TAOD_NR_PKEY_MPROTECT = 329,
	TAOD_NR_PROCESS_MADVISE = 440,
};
#endif

/* madvise's advice (asm-generic/mman-common.h), as the cause it gives. */
TAOD_RULE __u32 madvise_cause(unsigned long advice)
{
	if (advice == 4 || advice == 24) /* MADV_DONTNEED, MADV_DONTNEED_LOCKED */
		return TAOD_CAUSE_MADV_DONTNEED;
	if (advice == 8) /* MADV_FREE */
		return TAOD_CAUSE_MADV_FREE;
	if (advice == 20 || advice == 21) /* MADV_COLD, MADV_PAGEOUT */
		return TAOD_CAUSE_MADV_PAGEOUT;
	return TAOD_CAUSE_MADV_OTHER;
}

/* The cause syscall @nr gives a split; @arg2 and @arg3 are its third and
 * fourth arguments (madvise's and process_madvise's advice). */
TAOD_RULE __u32 syscall_cause(long nr, unsigned long arg2, unsigned long arg3)
{
	switch (nr) {
	case TAOD_NR_MUNMAP:
		return TAOD_CAUSE_MUNMAP;
	case TAOD_NR_MADVISE:
		return madvise_cause(arg2);
	case TAOD_NR_PROCESS_MADVISE:
		return madvise_cause(arg3);
	case TAOD_NR_MPROTECT:
	case TAOD_NR_PKEY_MPROTECT:
		return TAOD_CAUSE_MPROTECT;
	case TAOD_NR_MREMAP:
		return TAOD_CAUSE_MREMAP;
	case TAOD_NR_BRK:
		return TAOD_CAUSE_BRK;
	case TAOD_NR_EXIT:
	case TAOD_NR_EXIT_GROUP:
		return TAOD_CAUSE_EXIT;
	case TAOD_NR_MBIND:
	case TAOD_NR_MIGRATE_PAGES:
	case TAOD_NR_MOVE_PAGES:
		return TAOD_CAUSE_MIGRATION;
	}
	return TAOD_CAUSE_OTHER;
}

/* A kernel thread's cause, by its name (TAOD_COMM_LEN bytes). */
TAOD_RULE __u32 kthread_name_cause(const char *comm)
{
	if (comm[0] == 'k' && comm[1] == 'h' && comm[2] == 'u' && comm[3] == 'g')
		return TAOD_CAUSE_KHUGEPAGED;
	if (comm[0] == 'k' && comm[1] == 's' && comm[2] == 'w' && comm[3] == 'a')
		return TAOD_CAUSE_RECLAIM; /* kswapd */
	if (comm[0] == 'k' && comm[1] == 'c' && comm[2] == 'o' && comm[3] == 'm')
		return TAOD_CAUSE_MIGRATION; /* kcompactd */
	return TAOD_CAUSE_OTHER;
}

#endif
