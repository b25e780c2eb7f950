// SPDX-License-Identifier: GPL-2.0
/*
 * `zones`: the TAO policy zones as the kernel shows them, their use, and
 * the boot-time recommendation (zone_advice.h). `zones-apply` (root)
 * writes the recommendation, or the operator's own values once the
 * kernel's rules accept them, into the kernel command-line drop-in for
 * the next boot. It is dry-run in observe mode or when asked, refused on
 * a kernel without boot zones, and audited either way.
 */
#include <errno.h>
#include <json-c/json.h>
#include <stdio.h>
#include <string.h>

#include "act/act.h"
#include "act/gate/audit.h"
#include "act/tao/cmdline_dropin.h"
#include "commands.h"
#include "common/json_fields.h"
#include "taod/protocol.h"
#include "zone_advice.h"
#include "common/clock.h"

static struct json_object *use_json(const char *name, const struct zone_use *u)
{
	struct json_object *o = json_object_new_object();

	json_add_str(o, "name", name);
	json_add_bool(o, "present", u->present);
	json_add_i64(o, "order", u->order);
	json_add_u64(o, "present_bytes", u->present_bytes);
	json_add_u64(o, "free_bytes", u->free_bytes);
	json_add_u64(o, "pgalloc", u->pgalloc);
	json_add_u64(o, "allocstall", u->allocstall);
	json_add_u64(o, "pgskip", u->pgskip);
	return o;
}

static struct json_object *param_json(const struct zone_param *z)
{
	struct json_object *o = json_object_new_object();

	json_add_u64(o, "bytes", z->bytes);
	json_add_i64(o, "order", z->order);
	json_add_str(o, "why", z->why);
	return o;
}

/* Reads the kernel and the demand, and recommends; the result of zone_advise. */
static int advise(struct taod *d, struct zone_advice_in *in, struct zone_advice *out)
{
	struct thp_held h;
	int r;

	memset(in, 0, sizeof(*in));
	r = zone_advice_read(&d->cfg->k, in);
	if (r) {
		memset(out, 0, sizeof(*out));
		snprintf(out->nosplit.why, sizeof(out->nosplit.why), "%s", strerror(-r));
		return r;
	}
	thp_held_sum(&d->cgroups, &d->cfg->policies, &h);
	in->held_bytes = h.held_bytes;
	in->shortfall_bytes = h.shortfall_bytes;
	in->cgroups = h.cgroups;
	in->guaranteed = h.guaranteed;
	in->peak_bytes = thp_peak_max(&d->decide.zones.held_peak, monotonic_ms());
	in->window_ms = d->cfg->history_retention_ms;
	in->headroom = d->cfg->enforce.zone_headroom;
	return zone_advise(in, out);
}

static const char *sizing(const struct taod *d)
{
	if (kernel_has(&d->kernel, TAO_HOTPLUG_ZONES))
		return "hotplug";
	return kernel_has(&d->kernel, TAO_BOOT_ZONES) ? "boot" : "none";
}

struct json_object *cmd_zones(struct taod *d, struct json_object *req)
{
	struct json_object *o = protocol_ok(), *zones = json_object_new_array(), *rec;
	struct zone_advice_in in;
	struct zone_advice a;
	int r = advise(d, &in, &a);

	(void)req;
	json_object_array_add(zones, use_json(d->cfg->k.zone_nosplit, &in.nosplit));
	json_object_array_add(zones, use_json(d->cfg->k.zone_nomerge, &in.nomerge));
	json_add(o, "zones", zones);
	json_add_str(o, "sizing", sizing(d));
	json_add_str(o, "sizing_why",
		     d->kernel.feat[TAO_HOTPLUG_ZONES].present
			 ? d->kernel.feat[TAO_HOTPLUG_ZONES].why
			 : d->kernel.feat[TAO_BOOT_ZONES].why);
	json_add(o, "boot_nosplit", param_json(&in.boot_nosplit));
	json_add(o, "boot_nomerge", param_json(&in.boot_nomerge));
	json_add_u64(o, "memory_bytes", in.mem_bytes);
	json_add_i64(o, "pageblock_order", in.pageblock_order);
	json_add_u64(o, "demand_bytes", in.held_bytes + in.shortfall_bytes);
	json_add_u64(o, "held_bytes", in.held_bytes);
	json_add_u64(o, "shortfall_bytes", in.shortfall_bytes);
	json_add_u64(o, "peak_bytes", in.peak_bytes);
	json_add_u64(o, "window_ms", in.window_ms);
	json_add_u64(o, "cgroups", in.cgroups);
	json_add_u64(o, "guaranteed_cgroups", in.guaranteed);
	rec = json_object_new_object();
	json_add_bool(rec, "accepted", r == 0);
	json_add(rec, "nosplit", param_json(&a.nosplit));
	json_add(rec, "nomerge", param_json(&a.nomerge));
	json_add_str(rec, "cmdline", r ? "" : a.cmdline);
	json_add(o, "recommendation", rec);
	json_add_str(o, "dropin", d->cfg->enforce.zone_cmdline_dropin);
	return o;
}

#define MIB (1ULL << 20)

/*
 * The operator's "<bytes|NN%>,<order>" for one zone, or the recommendation's.
 * The drop-in says whole MiB: a share of memory is rounded down to one, a
 * size that is not one is refused rather than written as another (1K is not 0M).
 */
static int operator_value(struct json_object *req, const char *key, uint64_t mem,
			  struct zone_param *z, char *why, size_t len)
{
	struct zone_param ns, nm;
	const char *v = "", *comma;
	char line[96];
	int r = protocol_arg_string(req, key, &v);

	if (r == -ENOENT)
		return 0;
	snprintf(line, sizeof(line), "%s=%s", key, v);
	zone_cmdline_parse(line, mem, &ns, &nm);
	*z = !strcmp(key, "nosplit") ? ns : nm;
	comma = strchr(v, ',');
	if (comma && comma > v && comma[-1] == '%')
		z->bytes -= z->bytes % MIB;
	if (r || !z->bytes || z->bytes % MIB) {
		snprintf(why, len,
			 "args.%s \"%.40s\" must be \"<bytes|NN%%>,<order>\" of whole MiB", key, v);
		return -EINVAL;
	}
	return 0;
}

/* Fills @rec's detail and result: what to write, or why not. */
static void apply_plan(struct taod *d, struct json_object *req, struct action_record *rec,
		       char *params, size_t len)
{
	struct zone_advice_in in;
	struct zone_advice a;
	char why[192] = "";
	int r = advise(d, &in, &a);

	rec->result = RESULT_FAILED;
	if (!kernel_has(&d->kernel, TAO_BOOT_ZONES)) {
		rec->result = RESULT_UNSUPPORTED;
		snprintf(rec->detail, sizeof(rec->detail), "no boot zones: %s",
			 d->kernel.feat[TAO_BOOT_ZONES].why);
		return;
	}
	if (operator_value(req, "nosplit", in.mem_bytes, &a.nosplit, rec->detail,
			   sizeof(rec->detail)) ||
	    operator_value(req, "nomerge", in.mem_bytes, &a.nomerge, rec->detail,
			   sizeof(rec->detail))) {
		rec->err = EINVAL;
		return;
	}
	r = zone_params_check(&a.nosplit, &a.nomerge, in.pageblock_order, in.mem_bytes, why,
			      sizeof(why));
	if (r || (!a.nosplit.bytes && !a.nomerge.bytes)) {
		rec->err = EINVAL;
		snprintf(rec->detail, sizeof(rec->detail), "refused, the kernel would drop it: %s",
			 r ? why : "no zone asked for");
		return;
	}
	snprintf(params, len, "%s", "");
	if (a.nosplit.bytes)
		snprintf(params, len, "nosplit=%lluM,%d",
			 (unsigned long long)(a.nosplit.bytes >> 20), a.nosplit.order);
	if (a.nomerge.bytes)
		snprintf(params + strlen(params), len - strlen(params), "%snomerge=%lluM,%d",
			 params[0] ? " " : "", (unsigned long long)(a.nomerge.bytes >> 20),
			 a.nomerge.order);
	rec->result = RESULT_DONE;
}

struct json_object *cmd_zones_apply(struct taod *d, struct json_object *req)
{
	struct action_record rec = {.req = {.kind = ACTION_RESIZE_ZONES}};
	struct json_object *dry = protocol_arg(req, "dry_run"), *o;
	const char *path = d->cfg->enforce.zone_cmdline_dropin;
	char params[96] = "";
	int r;

	if (dry && !json_object_is_type(dry, json_type_boolean))
		return protocol_error("args.dry_run must be true or false");
	/* Nothing to try on such a kernel: a dry run is no action to audit. */
	if (!kernel_has(&d->kernel, TAO_BOOT_ZONES) && dry && json_object_get_boolean(dry))
		return protocol_errorf("zones do not apply to this kernel: %s",
				       d->kernel.feat[TAO_BOOT_ZONES].why);
	rec.req.dry_run =
	    (dry && json_object_get_boolean(dry)) || d->cfg->enforce.mode == ACT_MODE_OBSERVE;
	snprintf(rec.req.policy, sizeof(rec.req.policy), "taoctl zones --apply");
	snprintf(rec.req.evidence, sizeof(rec.req.evidence),
		 "kernel command line for the next boot");
	apply_plan(d, req, &rec, params, sizeof(params));
	if (rec.result == RESULT_DONE && rec.req.dry_run) {
		rec.result = RESULT_DRY_RUN;
		snprintf(rec.detail, sizeof(rec.detail), "would write \"%s\" to %s", params, path);
	} else if (rec.result == RESULT_DONE) {
		r = cmdline_dropin_write(path, params);
		rec.result = r ? RESULT_FAILED : RESULT_DONE;
		rec.err = -r;
		snprintf(rec.detail, sizeof(rec.detail),
			 r ? "writing \"%s\" to %s: %s" : "wrote \"%s\" to %s%s; run update-grub",
			 params, path, r ? strerror(-r) : "");
	}
	audit_record(actor_audit(d->actor), &rec);
	o = protocol_ok();
	json_add(o, "record", action_record_json(&rec));
	json_add_str(o, "cmdline", params);
	json_add_str(o, "dropin", path);
	return o;
}
