// SPDX-License-Identifier: GPL-2.0
/*
 * The pressure inputs from what the kernel already counts. Rates come from
 * cumulative counters (the state machine takes their deltas); free blocks
 * and PSI are read as they are.
 */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pressure_read.h"
#include "common/parse.h"
#include "common/rootfs.h"

#define TEXT_MAX (1 << 20)

/*
 * vmstat counters summed into each rate input; a prefix ends in '_'. A
 * charge fallback is a cgroup at its own limit, not a lack of contiguity:
 * a tenant whose child cgroup has a 1 MiB limit makes thousands a second
 * (-1: subtracted).
 */
static const struct {
	const char *name;
	enum pressure_input in;
	bool prefix;
	int sign;
} vmstat_rows[] = {
    {"thp_fault_fallback", PIN_THP_FAULT_FALLBACK, false, 1},
    {"thp_fault_fallback_charge", PIN_THP_FAULT_FALLBACK, false, -1},
    {"thp_collapse_alloc_failed", PIN_COLLAPSE_FAILED, false, 1},
    {"compact_stall", PIN_COMPACT_STALL, false, 1},
    {"compact_fail", PIN_COMPACT_FAIL, false, 1},
    {"allocstall_nosplit", PIN_TAO_ALLOCSTALL, false, 1},
    {"allocstall_nomerge", PIN_TAO_ALLOCSTALL, false, 1},
    {"pgskip_nosplit", PIN_TAO_PGSKIP, false, 1},
    {"pgskip_nomerge", PIN_TAO_PGSKIP, false, 1},
    {"allocstall_", PIN_ALLOCSTALL, true, 1}, /* after TAO's own: the first match wins */
};

static int vmstat_row(const char *name)
{
	for (size_t i = 0; i < sizeof(vmstat_rows) / sizeof(vmstat_rows[0]); i++) {
		size_t n = strlen(vmstat_rows[i].name);

		if (vmstat_rows[i].prefix ? !strncmp(name, vmstat_rows[i].name, n)
					  : !strcmp(name, vmstat_rows[i].name))
			return (int)i;
	}
	return -1;
}

static int count_of(const char *s, uint64_t *v)
{
	return parse_u64(s, v) || *v > PRESSURE_COUNT_MAX ? -EINVAL : 0;
}

static void add_value(struct pressure_reading *r, enum pressure_input in, double v)
{
	r->value[in] = r->present & (1u << in) ? r->value[in] + v : v;
	r->present |= 1u << in;
}

int pressure_parse_vmstat(const char *text, struct pressure_reading *r, char *err, size_t len)
{
	int line = 0, rc = 0;

	for (const char *p = text; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL) {
		char name[64], value[32];
		uint64_t v;
		int row;

		line++;
		if (sscanf(p, "%63s %31s", name, value) != 2 || (row = vmstat_row(name)) < 0)
			continue;
		if (count_of(value, &v)) {
			if (!rc)
				snprintf(err, len, "vmstat line %d: %s = \"%s\" is not a count",
					 line, name, value);
			rc = -EINVAL;
			continue;
		}
		add_value(r, vmstat_rows[row].in, vmstat_rows[row].sign * (double)v);
	}
	return rc;
}

/* "some avg10=1.23 ..." -> 1.23, within 0..100. */
static int psi_line(const char *p, struct pressure_reading *r, char *err, size_t len)
{
	char kind[8];
	double avg;

	if (sscanf(p, "%7s avg10=%lf", kind, &avg) != 2 ||
	    (strcmp(kind, "some") && strcmp(kind, "full"))) {
		int n = (int)strcspn(p, "\n");

		snprintf(err, len, "memory PSI: \"%.*s\" is not \"some|full avg10=N ...\"",
			 n < 40 ? n : 40, p);
		return -EINVAL;
	}
	if (!(avg >= 0 && avg <= 100)) {
		snprintf(err, len, "memory PSI: %s avg10=%g is outside 0..100", kind, avg);
		return -ERANGE;
	}
	add_value(r, kind[0] == 's' ? PIN_PSI_SOME : PIN_PSI_FULL, avg);
	return 0;
}

int pressure_parse_psi(const char *text, struct pressure_reading *r, char *err, size_t len)
{
	char why[160];
	int rc = 0;

	for (const char *p = text; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL) {
		int e = *p == '\n' ? 0 : psi_line(p, r, why, sizeof(why));

		if (e && !rc) /* the first error is the one told */
			snprintf(err, len, "%s", why);
		rc = rc ? rc : e;
	}
	return rc;
}

/* Free blocks of @z at @order and up, in units of @order. */
static uint64_t blocks_from(const struct zone_stat *z, int order)
{
	uint64_t n = 0;

	for (int o = order; o < z->norders; o++)
		n += z->free_blocks[o] << (o - order);
	return n;
}

static void place_add(struct pressure_reading *r, const char *name, uint64_t blocks)
{
	for (size_t i = 0; i < r->nplaces; i++)
		if (!strcmp(r->places[i].name, name)) {
			r->places[i].free_pmd_blocks += blocks;
			return;
		}
	if (r->nplaces == PRESSURE_MAX_PLACES)
		return;
	snprintf(r->places[r->nplaces].name, PRESSURE_PLACE_NAME, "%s", name);
	r->places[r->nplaces++].free_pmd_blocks = blocks;
}

/* A count this large shifted up to order 0 would not fit: not a count. */
static bool zone_sane(const struct zone_stat *z)
{
	for (int o = 0; o < z->norders; o++)
		if (z->free_blocks[o] > (PRESSURE_COUNT_MAX >> MACHINE_MAX_ORDERS))
			return false;
	return z->norders > 0;
}

int pressure_free_blocks(const struct machine_stats *m, int pmd_order, int mthp_order,
			 const char *nosplit, const char *nomerge, struct pressure_reading *r)
{
	uint64_t pmd = 0, mthp = 0;
	bool any = false;

	for (size_t i = 0; i < m->nzones; i++) {
		const struct zone_stat *z = &m->zones[i];
		char name[PRESSURE_PLACE_NAME];
		uint64_t b;

		if (!zone_sane(z) || !strcmp(z->name, "DMA"))
			continue;
		any = true;
		b = blocks_from(z, pmd_order);
		pmd += b;
		mthp += mthp_order > 0 ? blocks_from(z, mthp_order) : 0;
		snprintf(name, sizeof(name), "node%d", z->node);
		place_add(r, name, b);
		if (!strcmp(z->name, nosplit) || !strcmp(z->name, nomerge)) {
			snprintf(name, sizeof(name), "node%d/%.24s", z->node, z->name);
			place_add(r, name, b);
		}
	}
	if (!any)
		return -ENODATA;
	add_value(r, PIN_FREE_PMD_BLOCKS, (double)pmd);
	if (mthp_order > 0)
		add_value(r, PIN_FREE_MTHP_BLOCKS, (double)mthp);
	return 0;
}

/* @buf cut at its first newline (an empty file: ""). */
static const char *first_line(char *buf)
{
	buf[strcspn(buf, "\n")] = '\0';
	return buf;
}

static int order_of_kb(unsigned kb)
{
	int o = 0;

	while ((4u << o) < kb && o < 30)
		o++;
	return (4u << o) == kb ? o : -1;
}

/* "always [inherit] madvise never": the bracketed word is in force. */
static bool size_enabled(int basefd, const char *size_dir, bool top_on)
{
	char path[NAME_MAX + 16], buf[128];

	snprintf(path, sizeof(path), "%s/enabled", size_dir);
	if (read_file_at(basefd, path, buf, sizeof(buf)) <= 0 || strstr(buf, "[never]"))
		return false;
	return !strstr(buf, "[inherit]") || top_on;
}

/* Fallbacks summed over the sizes below the PMD; the smallest enabled size's order. */
static int read_mthp(const char *base, unsigned pmd_kb, bool top_on, struct pressure_reading *r)
{
	struct dirent *de;
	int smallest = 0;
	DIR *d = opendir(base);

	if (!d)
		return 0;
	/* Files named from the directory opened: read every tick, each open
	 * resolves three names rather than the whole sysfs path. */
	while ((de = readdir(d))) {
		char path[NAME_MAX + 32], buf[32];
		unsigned kb;
		uint64_t v;
		int o;

		if (sscanf(de->d_name, "hugepages-%ukB", &kb) != 1 || kb >= pmd_kb ||
		    (o = order_of_kb(kb)) < 0)
			continue;
		snprintf(path, sizeof(path), "%s/stats/anon_fault_fallback", de->d_name);
		if (read_file_at(dirfd(d), path, buf, sizeof(buf)) > 0 &&
		    !count_of(first_line(buf), &v))
			add_value(r, PIN_MTHP_FAULT_FALLBACK, (double)v);
		/* A cgroup at its limit, as for PMD THPs (6.10+). */
		snprintf(path, sizeof(path), "%s/stats/anon_fault_fallback_charge", de->d_name);
		if (read_file_at(dirfd(d), path, buf, sizeof(buf)) > 0 &&
		    !count_of(first_line(buf), &v))
			add_value(r, PIN_MTHP_FAULT_FALLBACK, -(double)v);
		if (size_enabled(dirfd(d), de->d_name, top_on) && (!smallest || o < smallest))
			smallest = o;
	}
	closedir(d);
	return smallest;
}

static bool thp_top_on(const char *base)
{
	char path[PATH_MAX + 16], buf[128];

	snprintf(path, sizeof(path), "%s/enabled", base);
	return read_file(path, buf, sizeof(buf)) > 0 && !strstr(buf, "[never]");
}

static int read_text(const char *file, char *buf, const char *what, char *err, size_t len)
{
	ssize_t n = rootfs_read(file, buf, TEXT_MAX);

	if (n < 0)
		snprintf(err, len, "%s %s: %s", what, file, strerror((int)-n));
	return n < 0 ? (int)n : 0;
}

/* Sets the first error: its text went to @why. */
static void first_error(int *rc, int e, const char *why, char *err, size_t len)
{
	if (e && !*rc) {
		*rc = e;
		snprintf(err, len, "%s", why);
	}
}

static int read_blocks(const struct kernel_paths *k, char *buf, int mthp_order,
		       struct pressure_reading *r, char *err, size_t len)
{
	struct machine_stats *m = calloc(1, sizeof(*m));
	long page = sysconf(_SC_PAGESIZE);
	int pmd_order = order_of_kb((unsigned)(page / 1024 * (page / 8))); /* 4 KiB pages: 9 */
	int e = m ? read_text(k->buddyinfo, buf, "buddyinfo", err, len) : -ENOMEM;

	if (!e) {
		machine_parse_buddyinfo(buf, m);
		e = pressure_free_blocks(m, pmd_order, mthp_order, k->zone_nosplit, k->zone_nomerge,
					 r);
		if (e)
			snprintf(err, len, "buddyinfo %s: no zone with free block counts",
				 k->buddyinfo);
	}
	free(m);
	return e;
}

int pressure_read(const struct kernel_paths *k, uint64_t now_ms, struct pressure_reading *r,
		  char *err, size_t len)
{
	char *buf = malloc(TEXT_MAX), why[256] = "", base[PATH_MAX];
	long page = sysconf(_SC_PAGESIZE);
	int rc = 0, mthp_order = 0, e;

	memset(r, 0, sizeof(*r));
	r->t_ms = now_ms;
	err[0] = '\0';
	if (!buf)
		return -ENOMEM;
	if (!rootfs_path(base, sizeof(base), k->thp_sysfs))
		mthp_order =
		    read_mthp(base, (unsigned)(page / 1024 * (page / 8)), thp_top_on(base), r);
	first_error(&rc, read_blocks(k, buf, mthp_order, r, why, sizeof(why)), why, err, len);
	e = read_text(k->vmstat, buf, "vmstat", why, sizeof(why));
	first_error(&rc, e ? e : pressure_parse_vmstat(buf, r, why, sizeof(why)), why, err, len);
	/* No PSI (CONFIG_PSI off, psi=0): its inputs stay absent, no error. */
	if (read_text(k->pressure_memory, buf, "PSI", why, sizeof(why)) == 0)
		first_error(&rc, pressure_parse_psi(buf, r, why, sizeof(why)), why, err, len);
	free(buf);
	return rc;
}
