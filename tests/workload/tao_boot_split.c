// SPDX-License-Identifier: GPL-2.0
/*
 * The boot-zone TAO kernel's debugfs split, for a fixture tree: preloaded
 * into taod (LD_PRELOAD), a write of "<pid>,0x<start>,0x<end>" to the
 * file TAO_FIXTURE_SPLIT is answered as that kernel would, by counting each
 * 2 MiB THP of the range in TAO_FIXTURE_VMSTAT before write() returns (the
 * kernel's vmstat events are read synchronously too). TAO_FIXTURE_MIX
 * cycles per THP over its letters: s shattered (thp_shatter_page), f
 * failed, d discarded, p split (thp_split_page, a folio outside the zones).
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char *const counters[] = {"thp_shatter_page", "thp_shatter_page_failed",
				       "thp_shatter_page_discarded", "thp_split_page"};
static unsigned long cycle; /* THPs answered so far: where the mix goes on */

static int slot(char c)
{
	const char *letters = "sfdp", *p = strchr(letters, c);

	return c && p ? (int)(p - letters) : 0;
}

/* Adds @add[i] to each counter of the vmstat file, through a renamed copy. */
static void bump(const char *path, const uint64_t add[4])
{
	char line[256], tmp[PATH_MAX];
	FILE *in = fopen(path, "r"), *out;

	snprintf(tmp, sizeof(tmp), "%s.fixture", path);
	out = fopen(tmp, "w");
	while (in && out && fgets(line, sizeof(line), in)) {
		char key[128];
		uint64_t v;
		int i = 4;

		if (sscanf(line, "%127s %" SCNu64, key, &v) == 2)
			for (i = 0; i < 4 && strcmp(key, counters[i]); i++)
				;
		if (i < 4)
			fprintf(out, "%s %" PRIu64 "\n", key, v + add[i]);
		else
			fputs(line, out);
	}
	if (in)
		fclose(in);
	if (out && !fclose(out))
		rename(tmp, path);
}

static void answer(const char *cmd, size_t n)
{
	const char *vmstat = getenv("TAO_FIXTURE_VMSTAT"), *mix = getenv("TAO_FIXTURE_MIX");
	unsigned long long start, end;
	uint64_t add[4] = {0};
	char text[128];

	snprintf(text, sizeof(text), "%.*s", (int)(n < sizeof(text) ? n : sizeof(text) - 1), cmd);
	if (!vmstat || sscanf(text, "%*d,0x%llx,0x%llx", &start, &end) != 2 || end <= start)
		return;
	if (!mix || !*mix)
		mix = "s";
	for (unsigned long long a = start; a < end; a += 2ULL << 20)
		add[slot(mix[cycle++ % strlen(mix)])]++;
	bump(vmstat, add);
}

ssize_t write(int fd, const void *buf, size_t n)
{
	static ssize_t (*real)(int, const void *, size_t);
	const char *split = getenv("TAO_FIXTURE_SPLIT");
	char link[64], target[PATH_MAX];
	ssize_t r, len;

	if (!real)
		real = (ssize_t(*)(int, const void *, size_t))dlsym(RTLD_NEXT, "write");
	r = real(fd, buf, n);
	snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
	if (r < 0 || !split || (len = readlink(link, target, sizeof(target) - 1)) < 0)
		return r;
	target[len] = '\0';
	if (!strcmp(target, split))
		answer(buf, n);
	return r;
}
