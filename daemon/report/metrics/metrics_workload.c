// SPDX-License-Identifier: GPL-2.0
/*
 * taod_cgroup_workload_info: an info metric (value 1) whose labels name the
 * systemd unit, container and Kubernetes pod a cgroup's path follows the
 * conventions of, so a query can join coverage or class on a unit or a pod
 * (`* on (cgroup) group_left (pod) taod_cgroup_workload_info`). Cgroups whose
 * path names none have no sample: most of a host's cgroups are slices, and
 * an all-empty info series would only cost.
 */
#include <stdlib.h>
#include <string.h>

#include "metrics.h"
#include "common/workload_name.h"

/* @buf grown to hold @path escaped (U+FFFD for every byte at worst); NULL on ENOMEM. */
static char *label_for(char **buf, size_t *cap, const char *path)
{
	size_t need = 3 * strlen(path) + 1;

	if (need > *cap) {
		char *bigger = realloc(*buf, need);

		if (!bigger)
			return NULL;
		*buf = bigger;
		*cap = need;
	}
	prom_escape_label(path, *buf, *cap);
	return *buf;
}

void metrics_write_workloads(FILE *f, const struct cgroup_table *t)
{
	char *label = NULL;
	size_t cap = 0;

	fprintf(f, "# HELP taod_cgroup_workload_info The systemd unit, container and pod the "
		   "cgroup path names (empty: none).\n"
		   "# TYPE taod_cgroup_workload_info gauge\n");
	for (size_t i = 0; i < t->n; i++) {
		struct workload_name w;
		char unit[2 * WORKLOAD_FIELD_MAX];

		if (!t->v[i]->path || !workload_name_parse(t->v[i]->path, &w))
			continue;
		/* Paths have no length limit: a cut label would merge two series. */
		if (!label_for(&label, &cap, t->v[i]->path))
			break;
		/* A unit may hold systemd's \\xNN escapes; ids and UIDs are hex. */
		prom_escape_label(w.unit, unit, sizeof(unit));
		fprintf(f,
			"taod_cgroup_workload_info{cgroup=\"%s\",unit=\"%s\",container=\"%s\","
			"pod=\"%s\"} 1\n",
			label, unit, w.container, w.pod);
	}
	free(label);
}
