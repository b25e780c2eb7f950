// SPDX-License-Identifier: GPL-2.0
#include "huge_zero_probe.h"

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#define PMD_BYTES	 (2UL << 20)
#define PAGEMAP_PRESENT	 (1ULL << 63)
#define PAGEMAP_PFN_MASK ((1ULL << 55) - 1)
#define PMD_PAGES	 (PMD_BYTES / 4096)

static int pagemap_pfn(const void *addr, uint64_t *pfn)
{
	uint64_t entry;
	off_t off = (off_t)((uintptr_t)addr / 4096 * sizeof(entry));
	int fd = open("/proc/self/pagemap", O_RDONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return -errno;
	n = pread(fd, &entry, sizeof(entry), off);
	close(fd);
	if (n != (ssize_t)sizeof(entry))
		return n < 0 ? -errno : -EIO;
	if (!(entry & PAGEMAP_PRESENT))
		return -ENOENT;
	*pfn = entry & PAGEMAP_PFN_MASK;
	return *pfn ? 0 : -EPERM; /* PFNs hidden without CAP_SYS_ADMIN */
}

/* Maps @len bytes and read-faults the first PMD-aligned 2 MiB in it. */
static int read_fault_pmd(char **raw, size_t len, const char **pmd)
{
	*raw = mmap(NULL, len, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (*raw == MAP_FAILED)
		return -errno;
	*pmd = (const char *)(((uintptr_t)*raw + PMD_BYTES - 1) & ~(PMD_BYTES - 1));
	madvise((void *)*pmd, PMD_BYTES, MADV_HUGEPAGE);
	(void)*(volatile const char *)*pmd;
	return 0;
}

/*
 * The PFN two independent read faults share, PMD-mapped (the next page at
 * the next PFN): only the huge zero page is mapped so. A kernel that
 * allocates THPs on read faults, or has THPs off, gives -ENOENT.
 */
static int shared_pmd_pfn(const char *a, const char *b, uint64_t *pfn)
{
	uint64_t next, other;
	int r = pagemap_pfn(a, pfn);

	if (!r)
		r = pagemap_pfn(a + 4096, &next);
	if (!r)
		r = pagemap_pfn(b, &other);
	if (r)
		return r;
	return *pfn % PMD_PAGES || next != *pfn + 1 || other != *pfn ? -ENOENT : 0;
}

int huge_zero_probe_open(struct huge_zero_probe *z)
{
	size_t len = 2 * PMD_BYTES;
	const char *a, *b;
	char *raw_a, *raw_b;
	int r;

	memset(z, 0, sizeof(*z));
	r = read_fault_pmd(&raw_a, len, &a);
	if (r)
		return r;
	r = read_fault_pmd(&raw_b, len, &b);
	if (!r) {
		r = shared_pmd_pfn(a, b, &z->pfn);
		munmap(raw_b, len);
	}
	if (r) {
		munmap(raw_a, len);
		memset(z, 0, sizeof(*z));
		return r;
	}
	z->map = raw_a;
	z->len = len;
	return 0;
}

void huge_zero_probe_close(struct huge_zero_probe *z)
{
	if (z->map)
		munmap(z->map, z->len);
	memset(z, 0, sizeof(*z));
}
