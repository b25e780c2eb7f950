// SPDX-License-Identifier: GPL-2.0
/*
 * One row per naming convention, matched against each path component from
 * the root down: a later (inner) match overrides an earlier one, so
 * kubepods.slice/.../cri-containerd-ID.scope/sub gives the scope's id.
 */
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "json_fields.h"
#include "workload_name.h"

enum field { F_UNIT, F_SLICE, F_CONTAINER, F_POD };

/* Which bytes the part between prefix and suffix may hold. */
enum charset {
	CS_HEX,	 /* container ids: lowercase hex */
	CS_UID,	 /* pod UIDs: hex and '-' (cgroupfs) */
	CS_UID_, /* pod UIDs in systemd slice names: '-' became '_' */
	CS_UNIT, /* systemd unit names: [A-Za-z0-9:_.@\-] (and \x escapes) */
};

struct convention {
	const char *parent; /* the previous component must be this, or NULL */
	size_t parent_len;
	const char *prefix;
	size_t pre;
	const char *suffix;
	size_t suf;
	enum charset cs;
	size_t min, max; /* length of the part between prefix and suffix */
	enum field field;
	bool whole; /* the field is the whole component, not the part */
};

/* A string literal and its length, for the table. */
#define S(lit) lit, sizeof(lit) - 1

static const struct convention conventions[] = {
    /* systemd: the innermost service or scope, else the innermost slice. */
    {NULL, 0, S(""), S(".service"), CS_UNIT, 1, 247, F_UNIT, true},
    {NULL, 0, S(""), S(".scope"), CS_UNIT, 1, 249, F_UNIT, true},
    {NULL, 0, S(""), S(".slice"), CS_UNIT, 1, 249, F_SLICE, true},
    /* Container runtimes under systemd (the systemd cgroup driver). */
    {NULL, 0, S("docker-"), S(".scope"), CS_HEX, 12, 64, F_CONTAINER, false},
    {NULL, 0, S("cri-containerd-"), S(".scope"), CS_HEX, 12, 64, F_CONTAINER, false},
    {NULL, 0, S("crio-"), S(".scope"), CS_HEX, 12, 64, F_CONTAINER, false},
    {NULL, 0, S("libpod-"), S(".scope"), CS_HEX, 12, 64, F_CONTAINER, false},
    /* Docker's cgroupfs driver (cgroup v1 and v2): /docker/ID. */
    {S("docker"), S(""), S(""), CS_HEX, 64, 64, F_CONTAINER, false},
    /* Kubernetes, systemd driver: kubepods[-QOS]-podUID.slice. */
    {NULL, 0, S("kubepods-pod"), S(".slice"), CS_UID_, 1, 64, F_POD, false},
    {NULL, 0, S("kubepods-burstable-pod"), S(".slice"), CS_UID_, 1, 64, F_POD, false},
    {NULL, 0, S("kubepods-besteffort-pod"), S(".slice"), CS_UID_, 1, 64, F_POD, false},
    /* Kubernetes, cgroupfs driver: /kubepods[/QOS]/podUID/ID. */
    {S("kubepods"), S("pod"), S(""), CS_UID, 1, 64, F_POD, false},
    {S("burstable"), S("pod"), S(""), CS_UID, 1, 64, F_POD, false},
    {S("besteffort"), S("pod"), S(""), CS_UID, 1, 64, F_POD, false},
};

static bool in_charset(char c, enum charset cs)
{
	bool hex = (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f');

	switch (cs) {
	case CS_HEX:
		return hex;
	case CS_UID:
		return hex || c == '-';
	case CS_UID_:
		return hex || c == '_';
	case CS_UNIT:
		return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
		       (c && strchr(":_.@-\\", c));
	}
	return false;
}

/* @s (@n bytes) starts with @p (@pn bytes). */
static bool starts(const char *s, size_t n, const char *p, size_t pn)
{
	return n >= pn && !memcmp(s, p, pn);
}

static bool ends(const char *s, size_t n, const char *p, size_t pn)
{
	return n >= pn && !memcmp(s + n - pn, p, pn);
}

/* Component @c (@n bytes) after @parent (@pn bytes; NULL at the top) follows @cv. */
static bool follows(const struct convention *cv, const char *parent, size_t pn, const char *c,
		    size_t n)
{
	size_t pre = cv->pre, suf = cv->suf;

	if (cv->parent && (!parent || pn != cv->parent_len || memcmp(parent, cv->parent, pn)))
		return false;
	/* The suffix first: most components end in none of them. */
	if (n < pre + suf || !ends(c, n, cv->suffix, suf) || !starts(c, n, cv->prefix, pre))
		return false;
	if (n - pre - suf < cv->min || n - pre - suf > cv->max)
		return false;
	for (size_t i = pre; i < n - suf; i++)
		if (!in_charset(c[i], cv->cs))
			return false;
	return true;
}

/* The cgroupfs driver's container: the child of a pod's cgroup. */
static bool pod_child(const char *parent, size_t pn, const char *c, size_t n)
{
	if (!parent || !starts(parent, pn, S("pod")) || n != 64)
		return false;
	for (size_t i = 0; i < n; i++)
		if (!in_charset(c[i], CS_HEX))
			return false;
	return true;
}

static void store(char *dst, const char *src, size_t n, bool dashes)
{
	memcpy(dst, src, n);
	dst[n] = '\0';
	for (size_t i = 0; dashes && i < n; i++)
		if (dst[i] == '_')
			dst[i] = '-';
}

static void match_component(const char *parent, size_t pn, const char *c, size_t n,
			    struct workload_name *out, char *slice)
{
	char *fields[] = {[F_UNIT] = out->unit,
			  [F_SLICE] = slice,
			  [F_CONTAINER] = out->container,
			  [F_POD] = out->pod};

	for (size_t i = 0; i < sizeof(conventions) / sizeof(conventions[0]); i++) {
		const struct convention *cv = &conventions[i];

		if (!follows(cv, parent, pn, c, n))
			continue;
		if (cv->whole)
			store(fields[cv->field], c, n, false);
		else
			store(fields[cv->field], c + cv->pre, n - cv->pre - cv->suf,
			      cv->cs == CS_UID_);
	}
	if (pod_child(parent, pn, c, n) && out->pod[0])
		store(out->container, c, n, false);
}

int workload_name_parse(const char *path, struct workload_name *out)
{
	char slice[WORKLOAD_FIELD_MAX] = "";
	const char *parent = NULL;
	size_t pn = 0;

	/* Not a memset of 768 bytes: this runs per cgroup per metrics write. */
	out->unit[0] = out->container[0] = out->pod[0] = '\0';
	for (const char *c = path; c && *c;) {
		const char *end = strchr(c, '/');
		size_t n = end ? (size_t)(end - c) : strlen(c);

		if (n) {
			match_component(parent, pn, c, n, out, slice);
			parent = c;
			pn = n;
		}
		c += n + (end ? 1 : 0);
	}
	if (!out->unit[0])
		memcpy(out->unit, slice, sizeof(slice));
	return !!out->unit[0] + !!out->container[0] + !!out->pod[0];
}

const char *workload_name_label(const struct workload_name *w, char *buf, size_t len)
{
	if (!len)
		return buf;
	if (w->container[0] || w->pod[0])
		snprintf(buf, len, "%s%s%s%.12s", w->pod[0] ? "pod=" : "", w->pod,
			 w->pod[0] && w->container[0] ? " ctr=" : (w->container[0] ? "ctr=" : ""),
			 w->container);
	else
		snprintf(buf, len, "%s", w->unit);
	return buf;
}

void workload_name_json(struct json_object *o, const struct workload_name *w)
{
	json_add_str_or_null(o, "unit", w->unit);
	json_add_str_or_null(o, "container", w->container);
	json_add_str_or_null(o, "pod", w->pod);
}
