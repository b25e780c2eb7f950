// SPDX-License-Identifier: GPL-2.0
/*
 * A tenant that shut down holds no task and no anon memory: its exit freed
 * whatever it broke. An action decided against it just before (or asked
 * for by hand) would warn, restrict or shatter nobody, and its audit
 * record would read "done" over evidence of nothing (issue 26 item 3).
 */
#include "holds_nothing.h"
#include "account/memstat.h"
#include "act/read/proc_tasks.h"
#include "common/cgroup_dir.h"

static bool anon_none(const struct cgroup_tree *t, const struct kernel_paths *k, const char *rel)
{
	const char *key = t->version == 2 ? k->memstat_v2_anon : k->memstat_v1_anon;
	char text[16384];
	uint64_t anon;

	if (cgroup_file_read(t, rel, "memory.stat", text, sizeof(text)) <= 0)
		return false;
	return !kv_lookup_u64(text, key, &anon) && anon == 0;
}

bool cgroup_holds_nothing(const struct cgroup_tree *t, const struct kernel_paths *k,
			  const char *rel)
{
	return anon_none(t, k, rel) && cgroup_has_tasks(t, rel) == 0;
}
