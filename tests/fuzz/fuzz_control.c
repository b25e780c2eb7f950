// SPDX-License-Identifier: GPL-2.0
/*
 * The control socket's request parser and command dispatch, on a daemon
 * made in memory: its root is a scratch directory and its backend the
 * dry-run one, so no input can reach a kernel file or a real task. The
 * BPF observer is replaced by the stand-in below (libtaod.a's is not
 * linked in).
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <sys/stat.h>

#include "input.h"
#include "act/act.h"
#include "observe/thp_observe.h"
#include "control/commands.h"
#include "control/control_server.h"
#include "pipeline.h"
#include "common/json_fields.h"
#include "taod/protocol.h"
#include "common/rootfs.h"

const char *thp_observe_mode(const struct thp_observe *o)
{
	(void)o;
	return "tracepoint";
}

const char *thp_observe_mode_reason(const struct thp_observe *o)
{
	(void)o;
	return "fuzzing";
}

const char *thp_observe_sizes_mode(const struct thp_observe *o)
{
	(void)o;
	return "tracepoint: none (fuzzing)";
}

size_t thp_observe_cgroup_rows(const struct thp_observe *o)
{
	(void)o;
	return 3;
}

int thp_observe_costs(struct thp_observe *o, struct bpf_prog_cost *out, size_t max)
{
	(void)o;
	if (max)
		*out = (struct bpf_prog_cost){.name = "on_memcg_event", .run_cnt = 3};
	return max ? 1 : 0;
}

int thp_observe_read_tasks(struct thp_observe *o, task_counters_fn fn, void *ctx)
{
	struct taod_task_counters t = {.cgroup_id = 2, .pmd_split = 4};

	(void)o;
	snprintf(t.comm, sizeof(t.comm), "abuser\xff");
	fn(ctx, 4242, &t);
	return 0;
}

/* The task's size mix: 64 KiB folios faulted, left partially mapped, split. */
int thp_observe_task_sizes(struct thp_observe *o, uint32_t tgid, struct taod_task_sizes *out)
{
	(void)o;
	if (tgid != 4242)
		return -ENOENT;
	*out = (struct taod_task_sizes){.fault_alloc[4] = 32, .partial[4] = 8, .split[4] = 4};
	return 0;
}

/* No split stack was sampled: explain's stack is null. */
int thp_observe_split_stack(struct thp_observe *o, uint32_t tgid, struct taod_split_stack *out)
{
	(void)o;
	(void)tgid;
	(void)out;
	return -ENOENT;
}

int thp_observe_watch_stacks(struct thp_observe *o, const uint32_t *tgids, size_t n)
{
	(void)o;
	(void)tgids;
	(void)n;
	return 0;
}

static struct taod d;
static struct taod_config cfg;

static void make_daemon(void)
{
	static char root[] = "/tmp/taod-fuzz-root-XXXXXX";
	char dir[PATH_MAX];

	if (!mkdtemp(root))
		abort();
	rootfs_set(root);
	snprintf(dir, sizeof(dir), "mkdir -p %s/sys/fs/cgroup/app/a %s/sys/fs/cgroup/taod", root,
		 root);
	if (system(dir))
		abort();
	config_defaults(&cfg);
	cfg.enforce.audit_log[0] = '\0';
	d.cfg = &cfg;
	d.tree.version = 2;
	snprintf(d.tree.mount, sizeof(d.tree.mount), "%s/sys/fs/cgroup", root);
	snprintf(d.tree.self, sizeof(d.tree.self), "/taod");
	cgroup_table_init(&d.cgroups, 16);
	cgroup_table_touch(&d.cgroups, 1, "/", 0, 1);
	cgroup_table_touch(&d.cgroups, 2, "/app/a", 0, 1);
	decide_init(&d.decide);
	if (actor_open(&d.actor, &cfg.enforce, &cfg.k, &d.tree, &backend_dry_run_ops))
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct peer peer = {.pid = 1, .uid = size && data[0] & 1 ? 1000 : 0};
	struct json_object *req = NULL, *reply;
	char *text, err[160], *out;

	if (!d.cfg)
		make_daemon();
	text = fuzz_cstr(data + !!size, size ? size - 1 : 0);
	if (!text)
		return 0;
	if (protocol_parse_request(text, &req, err, sizeof(err)))
		reply = protocol_error(err);
	else
		reply = commands_dispatch(&d, &peer, req);
	out = json_to_text(reply, JSON_C_TO_STRING_PLAIN);
	free(out);
	json_object_put(reply);
	json_object_put(req);
	free(text);
	return 0;
}
