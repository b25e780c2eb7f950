// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * What every family shares, defined once: the license, the config the
 * daemon fills before load (rodata), and the maps shared.bpf.h and sizes.bpf.h declare.
 * No program: this file attaches to nothing.
 */
#define TAOD_BPF_DEFINE_SHARED
#include "shared.bpf.h"
#include "sizes.bpf.h"

char LICENSE[] SEC("license") = "Dual BSD/GPL";

const volatile struct taod_bpf_config taod_cfg = {
    .stale_pending_ns = 1000000,
    .pmd_pages = 512,
    .pmd_order = 9,
};
