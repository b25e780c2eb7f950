// SPDX-License-Identifier: GPL-2.0
/*
 * Control commands of the act stage: `actions` reads the audit ring,
 * `act` (root) submits one request through the same safety gate decide
 * uses, for operators and tests.
 */
#include <errno.h>
#include <fnmatch.h>
#include <json-c/json.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "act/act.h"
#include "act/read/proc_tasks.h"
#include "common/json_fields.h"
#include "act/gate/audit.h"
#include "common/cgroup_dir.h"
#include "common/cgroup_path.h"
#include "commands.h"
#include "taod/protocol.h"

#define ACTIONS_LIMIT_MAX 1024

struct json_object *cmd_actions(struct taod *d, struct json_object *req)
{
	struct audit_log *log = actor_audit(d->actor);
	struct json_object *o, *list;
	const char *glob = NULL;
	int64_t limit = 50;
	int r = protocol_arg_int(req, "limit", 1, ACTIONS_LIMIT_MAX, &limit);

	if (r == -EINVAL || r == -ERANGE)
		return protocol_errorf("args.limit must be an integer from 1 to %d",
				       ACTIONS_LIMIT_MAX);
	if (protocol_arg_string(req, "glob", &glob) == -EINVAL)
		return protocol_error("args.glob must be a string");
	list = json_object_new_array();
	for (size_t i = 0; i < audit_count(log) && (int64_t)json_object_array_length(list) < limit;
	     i++) {
		const struct action_record *rec = audit_get(log, i);

		if (glob && fnmatch(glob, rec->req.cgroup ? rec->req.cgroup : "", 0))
			continue;
		json_object_array_add(list, action_record_json(rec));
	}
	o = protocol_ok();
	json_add(o, "actions", list);
	return o;
}

static int kind_from_name(const char *name, enum action_kind *out)
{
	int k = action_kind_by_name(name);

	if (k < 0)
		return -EINVAL;
	*out = (enum action_kind)k;
	return 0;
}

/* Fills the numeric and boolean arguments; NULL or an error reply. */
static struct json_object *act_numbers(struct json_object *req, struct action_request *ar)
{
	struct json_object *dry = protocol_arg(req, "dry_run");
	int64_t pid = 0, bytes = 0;
	int r;

	r = protocol_arg_int(req, "pid", 0, INT32_MAX, &pid);
	if (r == -EINVAL || r == -ERANGE)
		return protocol_error("args.pid must be a pid");
	r = protocol_arg_int(req, "bytes", 0, INT64_MAX, &bytes);
	if (r == -EINVAL || r == -ERANGE)
		return protocol_error("args.bytes must be a byte count");
	if (dry && !json_object_is_type(dry, json_type_boolean))
		return protocol_error("args.dry_run must be true or false");
	/* A thread's id names its process: the gate and the backend act on processes. */
	ar->pid = pid ? proc_thread_group((pid_t)pid) : 0;
	ar->bytes = (uint64_t)bytes;
	ar->dry_run = dry && json_object_get_boolean(dry);
	return NULL;
}

/* args.sizes: the folio sizes a shatter splits, as a policy's key (pmd,
 * mthp, all); PMD THPs when absent. */
static struct json_object *act_sizes(struct json_object *req, struct action_request *ar)
{
	static const unsigned choices[] = {POLICY_SIZES_PMD, POLICY_SIZES_MTHP,
					   POLICY_SIZES_PMD | POLICY_SIZES_MTHP};
	const char *v = NULL;
	int r = protocol_arg_string(req, "sizes", &v);

	ar->sizes = POLICY_SIZES_PMD;
	if (r == -EINVAL)
		return protocol_error("args.sizes must be one of pmd, mthp, all");
	for (size_t i = 0; v && i < sizeof(choices) / sizeof(*choices); i++)
		if (!strcmp(v, policy_sizes_name(choices[i]))) {
			ar->sizes = choices[i];
			return NULL;
		}
	return v ? protocol_error("args.sizes must be one of pmd, mthp, all") : NULL;
}

/*
 * An operator's target that is not there: refused outright, as "no such"
 * (the gate's "vanished" says a judged cgroup or task went away). @dir:
 * the cgroup's directory as cmd_act opened it, or -errno.
 */
static struct json_object *act_absent(struct taod *d, const struct action_request *ar, int dir)
{
	struct task_ref t;
	bool gone, elsewhere = false;

	if (dir == -ENOENT)
		return protocol_errorf("no such cgroup %s", ar->cgroup);
	if (!ar->pid)
		return NULL;
	gone = task_ref_open(&t, ar->pid) != 0;
	if (!gone && ar->cgroup[0])
		elsewhere = !task_ref_in_cgroup(&d->tree, &t, ar->cgroup);
	task_ref_close(&t);
	if (gone)
		return protocol_errorf("no such process %d", (int)ar->pid);
	return elsewhere ? protocol_errorf("task %d is not in %s", (int)ar->pid, ar->cgroup) : NULL;
}

/* The record, as the reply to `act`. */
static struct json_object *act_reply(const struct action_record *rec)
{
	struct json_object *o = protocol_ok();

	json_add(o, "record", action_record_json(rec));
	return o;
}

/* The client waiting for an off-loop action's record (NULL: none waits). */
static void act_replied(void *ctx, const struct action_record *rec)
{
	control_deferred_reply(ctx, protocol_reply_line(act_reply(rec)));
}

struct json_object *cmd_act(struct taod *d, struct json_object *req)
{
	struct action_request ar = {0};
	struct action_record rec;
	const char *kind = NULL, *cgroup = "";
	struct control_deferred *h;
	struct json_object *err;
	char why[96], words[160];
	struct stat st;
	int dir;

	if (protocol_arg_string(req, "action", &kind) || kind_from_name(kind, &ar.kind)) {
		action_kind_words(words, sizeof(words));
		return protocol_errorf("args.action must be one of %s", words);
	}
	if (protocol_arg_string(req, "cgroup", &cgroup) == -EINVAL ||
	    (!action_kind_row(ar.kind)->machine_wide && !cgroup[0]))
		return protocol_error("args.cgroup must name a cgroup, e.g. \"/app.slice/x\"");
	if (cgroup[0] && !cgroup_path_canonical(cgroup, why, sizeof(why)))
		return protocol_errorf("args.cgroup %s", why);
	err = act_numbers(req, &ar);
	if (!err)
		err = act_sizes(req, &ar);
	if (err)
		return err;
	ar.cgroup = cgroup;
	cgroup_tree_read_self(&d->tree); /* it may have moved since the last tick */
	snprintf(ar.policy, sizeof(ar.policy), "operator");
	ar.asked = true;
	snprintf(ar.evidence, sizeof(ar.evidence), "requested through the control socket");
	dir = cgroup[0] ? cgroup_dir_open(&d->tree, cgroup) : -ENOENT;
	if (dir >= 0 && !fstat(dir, &st))
		ar.cgroup_id = (uint64_t)st.st_ino;
	if (dir >= 0)
		close(dir);
	err = act_absent(d, &ar, cgroup[0] ? dir : 0);
	if (err)
		return err;
	/* A shatter or collapse is carried out off the loop: the client waits
	 * for its record (the action's time, its child's grace, the queue's). */
	h = control_server_defer(d->ctl, PROTOCOL_ACT_WAIT_S * 1000ULL);
	if (!h) {
		actor_submit(d->actor, &ar, &rec);
		return act_reply(&rec);
	}
	actor_submit_then(d->actor, &ar, act_replied, h);
	return NULL;
}

struct json_object *act_status_json(struct taod *d)
{
	struct json_object *o = json_object_new_object();
	struct act_stats s;

	json_add_str(o, "backend", actor_backend_name(d->actor));
	json_add_str(o, "mode", act_mode_name(d->cfg->enforce.mode));
	json_add_u64(o, "audited", audit_count(actor_audit(d->actor)));
	json_add_u64(o, "pending", actor_pending(d->actor));
	if (actor_read_stats(d->actor, &s) || !s.tao)
		return o;
	json_add_u64(o, "pgalloc_nosplit", s.pgalloc_nosplit);
	json_add_u64(o, "pgalloc_nomerge", s.pgalloc_nomerge);
	json_add_u64(o, "thp_shatter_page", s.thp_shatter_page);
	json_add_u64(o, "thp_shatter_page_failed", s.thp_shatter_page_failed);
	json_add_u64(o, "thp_shatter_page_discarded", s.thp_shatter_page_discarded);
	if (s.hvo_counted) {
		json_add_u64(o, "thp_hvo_page", s.thp_hvo_page);
		json_add_u64(o, "hvo_saved_bytes", s.hvo_saved_bytes);
	}
	json_add_u64(o, "nosplit_bytes", s.nosplit_bytes);
	json_add_u64(o, "nomerge_bytes", s.nomerge_bytes);
	json_add_u64(o, "block_bytes", s.block_bytes);
	return o;
}
