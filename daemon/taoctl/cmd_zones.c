// SPDX-License-Identifier: GPL-2.0
/*
 * taoctl zones: the TAO policy zones, their use and the boot-time
 * recommendation; --apply (root) writes the kernel command-line drop-in.
 */
#include <getopt.h>
#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "client.h"
#include "subcommands.h"
#include "format.h"
#include "common/json_fields.h"

static int zones_usage(void)
{
	fprintf(stderr, "taoctl: zones [--apply [--dry-run] [--nosplit SIZE,ORDER] "
			"[--nomerge SIZE,ORDER]]\n");
	return EXIT_USAGE;
}

static void print_zone(struct json_object *z)
{
	char present[32], free_[32];

	if (!json_object_get_boolean(jget(z, "present"))) {
		printf("  %-8s absent\n", jget_text(z, "name"));
		return;
	}
	printf("  %-8s order %d, %s, %s free; pgalloc %llu, allocstall %llu, pgskip %llu\n",
	       jget_text(z, "name"), json_object_get_int(jget(z, "order")),
	       fmt_bytes(present, sizeof(present), jget_u64(z, "present_bytes")),
	       fmt_bytes(free_, sizeof(free_), jget_u64(z, "free_bytes")),
	       (unsigned long long)jget_u64(z, "pgalloc"),
	       (unsigned long long)jget_u64(z, "allocstall"),
	       (unsigned long long)jget_u64(z, "pgskip"));
}

static void print_param(const char *name, struct json_object *p)
{
	char size[32];

	printf("  %-8s %s, order %d: %s\n", name,
	       fmt_bytes(size, sizeof(size), jget_u64(p, "bytes")),
	       json_object_get_int(jget(p, "order")), jget_text(p, "why"));
}

/* A kernel with no zone and no way to size one: a stock kernel. */
static bool zones_apply(struct json_object *r)
{
	struct json_object *zones = jget(r, "zones");

	for (size_t i = 0; zones && i < json_object_array_length(zones); i++)
		if (json_object_get_boolean(jget(json_object_array_get_idx(zones, i), "present")))
			return true;
	return strcmp(jget_text(r, "sizing"), "none");
}

static void print_zones(struct json_object *r)
{
	struct json_object *zones = jget(r, "zones"), *rec = jget(r, "recommendation");
	char dem[32], mem[32], held[32], peak[32];

	if (!zones_apply(r)) {
		printf("zones:       do not apply to this kernel (%s)\n",
		       jget_text(r, "sizing_why"));
		return;
	}
	printf("sizing:      %s (%s)\n", jget_text(r, "sizing"), jget_text(r, "sizing_why"));
	printf("memory:      %s, pageblock_order %d\n",
	       fmt_bytes(mem, sizeof(mem), jget_u64(r, "memory_bytes")),
	       json_object_get_int(jget(r, "pageblock_order")));
	printf("zones:\n");
	for (size_t i = 0; zones && i < json_object_array_length(zones); i++)
		print_zone(json_object_array_get_idx(zones, i));
	printf("demand:      %s: THPs held by %llu cgroups %s (peak %s), %llu guaranteed\n",
	       fmt_bytes(dem, sizeof(dem), jget_u64(r, "demand_bytes")),
	       (unsigned long long)jget_u64(r, "cgroups"),
	       fmt_bytes(held, sizeof(held), jget_u64(r, "held_bytes")),
	       fmt_bytes(peak, sizeof(peak), jget_u64(r, "peak_bytes")),
	       (unsigned long long)jget_u64(r, "guaranteed_cgroups"));
	printf("recommended: %s\n", json_object_get_boolean(jget(rec, "accepted"))
					? jget_text(rec, "cmdline")
					: "none the kernel would accept");
	print_param("nosplit", jget(rec, "nosplit"));
	print_param("nomerge", jget(rec, "nomerge"));
	printf("drop-in:     %s (taoctl zones --apply)\n", jget_text(r, "dropin"));
}

/* --apply's options into @args; -1 on a bad one. */
const struct taoctl_opt zones_opts[] = {{"apply", 'a', NULL},
					{"dry-run", 'd', NULL},
					{"nosplit", 's', "SIZE,ORDER"},
					{"nomerge", 'm', "SIZE,ORDER"},
					{0}};

static int apply_options(int argc, char **argv, struct json_object *args, bool *apply)
{
	int c;

	while ((c = taoctl_getopt(argc, argv, zones_opts, false)) != -1) {
		if (c == 'a')
			*apply = true;
		else if (c == 'd')
			json_add_bool(args, "dry_run", 1);
		else if ((c == 's' || c == 'm') &&
			 !opt_zone(c == 's' ? "--nosplit" : "--nomerge", optarg))
			json_add_str(args, c == 's' ? "nosplit" : "nomerge", optarg);
		else
			return -1;
	}
	if (optind < argc || (!*apply && json_object_object_length(args)))
		return -1;
	return 0;
}

int taoctl_zones(const struct taoctl *ctl, int argc, char **argv)
{
	struct json_object *args = json_object_new_object(), *r, *rec;
	bool apply = false;
	int rc;

	if (apply_options(argc, argv, args, &apply)) {
		json_object_put(args);
		return zones_usage();
	}
	rc = taoctl_request(ctl, apply ? "zones-apply" : "zones", args, &r);
	json_object_put(args);
	if (rc)
		return rc;
	rec = jget(r, "record");
	if (ctl->json)
		print_json(apply ? rec : r);
	else if (!apply)
		print_zones(r);
	else
		printf("zones --apply: %s (%s)\n", jget_text(rec, "result"),
		       jget_text(rec, "detail"));
	rc = apply && strcmp(jget_text(rec, "result"), "done") &&
		     strcmp(jget_text(rec, "result"), "dry-run")
		 ? EXIT_FAILED
		 : 0;
	json_object_put(r);
	return rc;
}
