// SPDX-License-Identifier: GPL-2.0
/*
 * /proc/PID/cgroup and cgroup.procs texts, the kernel probes' texts
 * (zoneinfo zone names, THP "enabled"), and the value syntaxes of
 * taod.conf and kernel files.
 */
#include <limits.h>

#include "input.h"
#include "act/read/proc_tasks.h"
#include "common/cgroup_path.h"
#include "observe/cgroup_tree.h"
#include "observe/kernel_probe.h"
#include "observe/mthp_probe.h"
#include "common/parse.h"
#include "common/utf8.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = fuzz_cstr(data, size), out[PATH_MAX], esc[256], *clean;
	uint64_t u;
	double d;
	bool b;
	unsigned mode;
	pid_t pids[64];

	if (!text)
		return 0;
	cgroup_of_proc_text(text, 1, out, sizeof(out));
	cgroup_of_proc_text(text, 2, out, sizeof(out));
	cgroup_of_proc_text(text, 2, esc, sizeof(esc));
	pids_parse(text, pids, 64);
	zoneinfo_has_zone(text, "NoSplit");
	mthp_mode_on(text);
	parse_duration_ms(text, &u);
	parse_size_bytes(text, &u);
	parse_bool(text, &b);
	parse_percent(text, &d);
	parse_u64(text, &u);
	parse_mode(text, &mode);
	cgroup_path_canonical(text, esc, sizeof(esc));
	text_escape(text, esc, sizeof(esc), true);
	clean = utf8_sanitize_dup(text);
	free(clean);
	free(text);
	return 0;
}
