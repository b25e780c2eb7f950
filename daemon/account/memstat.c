// SPDX-License-Identifier: GPL-2.0
#include "memstat.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

int kv_lookup_u64(const char *text, const char *key, uint64_t *out)
{
	size_t klen = strlen(key);

	for (const char *line = text; line && *line;) {
		const char *eol = strchr(line, '\n');

		if (!strncmp(line, key, klen) && line[klen] == ' ') {
			char *end;

			errno = 0;
			*out = strtoull(line + klen + 1, &end, 10);
			if (errno || end == line + klen + 1 || (*end && *end != '\n'))
				return -EINVAL;
			return 0;
		}
		line = eol ? eol + 1 : NULL;
	}
	return -ENOENT;
}

int memstat_parse(const char *text, const char *anon_key, const char *thp_key, struct memstat *out)
{
	int ra, rt;

	memset(out, 0, sizeof(*out));
	ra = kv_lookup_u64(text, anon_key, &out->anon_bytes);
	rt = kv_lookup_u64(text, thp_key, &out->thp_bytes);
	out->has_anon = ra == 0;
	out->has_thp = rt == 0;
	if (ra == -EINVAL || rt == -EINVAL)
		return -EINVAL;
	return out->has_anon ? 0 : -ENOENT;
}

double memstat_coverage_pct(const struct memstat *m)
{
	double pct;

	if (!m->has_anon || m->anon_bytes == 0)
		return -1;
	pct = 100.0 * (double)m->thp_bytes / (double)m->anon_bytes;
	return pct > 100.0 ? 100.0 : pct;
}
