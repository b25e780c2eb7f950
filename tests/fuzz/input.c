// SPDX-License-Identifier: GPL-2.0
#include "input.h"

#include <stdio.h>
#include <unistd.h>

int fuzz_file(const uint8_t *data, size_t size, char path[64])
{
	static int fd = -1;
	static char name[64];

	/* One file per process, rewritten for each input: no temp-file churn.
	 * On tmpfs where there is one: ext4 flushes a truncated file on close. */
	if (fd < 0) {
		snprintf(name, sizeof(name), "/dev/shm/taod-fuzz-XXXXXX");
		fd = mkstemp(name);
	}
	if (fd < 0) {
		snprintf(name, sizeof(name), "/tmp/taod-fuzz-XXXXXX");
		fd = mkstemp(name);
		if (fd < 0)
			return -1;
	}
	if (ftruncate(fd, 0) || pwrite(fd, data, size, 0) != (ssize_t)size)
		return -1;
	snprintf(path, 64, "%s", name);
	return 0;
}
