/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The workload a cgroup path names, by the conventions of who made the
 * cgroup: the systemd unit (system.slice/foo.service, user@1000.service,
 * session-3.scope, or the innermost slice), the container (docker-ID.scope,
 * cri-containerd-ID.scope, crio-ID.scope, libpod-ID.scope, /docker/ID on
 * cgroup v1, a pod's cgroupfs child) and the Kubernetes pod
 * (kubepods-burstable-podUID.slice, /kubepods/besteffort/podUID). Only the
 * path is read: a tenant names its own cgroups, so a field is a claim, not
 * a proof, and is printed as such (beside the path, never instead of it).
 */
#ifndef TAOD_WORKLOAD_NAME_H
#define TAOD_WORKLOAD_NAME_H

#include <json-c/json.h>
#include <stddef.h>

/* A systemd unit name is at most 255 bytes (UNIT_NAME_MAX - 1). */
#define WORKLOAD_FIELD_MAX 256

struct workload_name {
	char unit[WORKLOAD_FIELD_MAX];	    /* "foo.service", "" for none */
	char container[WORKLOAD_FIELD_MAX]; /* the runtime's id, hex */
	char pod[WORKLOAD_FIELD_MAX];	    /* the pod's UID, with dashes */
};

/*
 * Fills @out from @path (relative to the cgroup root, "/a/b"; any bytes).
 * Each field is the innermost component that follows its convention, or
 * empty; a component with a byte outside its convention's set (control
 * bytes, '/', spaces) or longer than a field follows none. Never fails on
 * any input; NULL @path gives all fields empty. Returns the number of
 * non-empty fields (0..3).
 */
int workload_name_parse(const char *path, struct workload_name *out);

/*
 * A short label for a table: "pod=UID ctr=ID12" for a container, else
 * "unit" (the container id cut to 12 characters, as docker ps shows it).
 * "" when @w has no field. Returns @buf.
 */
const char *workload_name_label(const struct workload_name *w, char *buf, size_t len);

/* Adds "unit", "container" and "pod" to @o, each null when empty. */
void workload_name_json(struct json_object *o, const struct workload_name *w);

#endif
