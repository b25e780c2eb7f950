// SPDX-License-Identifier: GPL-2.0
/*
 * The metrics an operator alerts on: whether taod's output sinks write,
 * what it did (actions by kind and result, as the audit records them) and
 * what it thinks of each judged cgroup (class, score, guarantee).
 */
#include <stdlib.h>
#include <string.h>

#include "metrics_internal.h"
#include "act/gate/audit.h"

static const struct {
	const char *name, *type, *help;
} sink_families[] = {
    {"taod_sink_up", "gauge",
     "1 while the output sink writes, 0 while it fails; absent when it is off."},
    {"taod_sink_errors_total", "counter", "Failed writes (or opens) of the output sink."},
    {"taod_sink_records_lost_total", "counter",
     "Records (batches, audit lines, textfiles) the output sink could not write."},
    {"taod_sink_failing_since_seconds", "gauge",
     "When the output sink began to fail, Unix time; 0 while it writes."},
};

static double sink_value(const struct sink_health *h, size_t m)
{
	switch (m) {
	case 0:
		return h->state == SINK_OK;
	case 1:
		return (double)h->errors;
	case 2:
		return (double)h->records_lost;
	}
	return (double)h->failing_since_ms / 1000.0;
}

static void write_sinks(FILE *f, const struct metrics_input *in)
{
	for (size_t m = 0; m < sizeof(sink_families) / sizeof(*sink_families); m++) {
		metrics_family(f, sink_families[m].name, sink_families[m].type,
			       sink_families[m].help);
		for (int s = 0; s < SINK_MAX; s++) {
			const struct sink_health *h = in->sinks[s];

			if (h && h->state != SINK_OFF)
				fprintf(f, "%s{sink=\"%s\"} %.17g\n", sink_families[m].name,
					sink_name((enum sink_id)s), sink_value(h, m));
		}
	}
}

static void write_actions(FILE *f, const struct audit_log *a)
{
	metrics_family(f, "taod_actions_total", "counter",
		       "Actions audited since taod started, by kind and result.");
	for (int k = 0; a && k < ACTION_KIND_MAX; k++)
		for (int r = 0; r < RESULT_MAX; r++) {
			uint64_t n =
			    audit_action_count(a, (enum action_kind)k, (enum action_result)r);

			if (n)
				fprintf(f, "taod_actions_total{kind=\"%s\",result=\"%s\"} %llu\n",
					action_kind_name((enum action_kind)k),
					action_result_name((enum action_result)r),
					(unsigned long long)n);
		}
}

enum judged_metric { J_CLASS, J_SCORE, J_GUARANTEE, J_SHATTERS, J_MAX };

static const struct {
	const char *name, *type, *help;
} judged_families[J_MAX] = {
    [J_CLASS] = {"taod_cgroup_class", "gauge",
		 "1 for the judged cgroup's class (good, misuser, abuser)."},
    [J_SCORE] = {"taod_cgroup_score", "gauge",
		 "The judged cgroup's last score: waste over the limit."},
    [J_GUARANTEE] = {"taod_cgroup_guarantee_ratio", "gauge",
		     "The THP coverage its policy guarantees the judged cgroup, 0 to 1."},
    [J_SHATTERS] = {"taod_cgroup_shatters_asked_total", "counter",
		    "Shatters the ladder asked for the judged cgroup since taod started."},
};

static void write_judged_sample(FILE *f, enum judged_metric m, const struct metrics_judged *j,
				const char *label)
{
	char cls[64];

	if (m == J_CLASS) {
		prom_escape_label(j->class_name ? j->class_name : "", cls, sizeof(cls));
		fprintf(f, "taod_cgroup_class{cgroup=\"%s\",class=\"%s\"} 1\n", label, cls);
	} else if (m == J_SCORE && j->scored) {
		fprintf(f, "taod_cgroup_score{cgroup=\"%s\"} %.17g\n", label, j->score);
	} else if (m == J_GUARANTEE && j->guarantee_ratio >= 0) {
		fprintf(f, "taod_cgroup_guarantee_ratio{cgroup=\"%s\"} %.17g\n", label,
			j->guarantee_ratio);
	} else if (m == J_SHATTERS) {
		fprintf(f, "taod_cgroup_shatters_asked_total{cgroup=\"%s\"} %llu\n", label,
			(unsigned long long)j->shatters_asked);
	}
}

static void write_judged(FILE *f, const struct metrics_input *in)
{
	for (int m = 0; m < J_MAX; m++) {
		metrics_family(f, judged_families[m].name, judged_families[m].type,
			       judged_families[m].help);
		for (size_t i = 0; in->judged && i < in->njudged; i++) {
			struct metrics_judged j;
			size_t max;
			char *label;

			if (!in->judged(in->judged_ctx, i, &j) || !j.cgroup)
				continue;
			max = 3 * strlen(j.cgroup) + 1; /* U+FFFD for every byte at worst */
			label = malloc(max);
			if (!label)
				continue;
			prom_escape_label(j.cgroup, label, max);
			write_judged_sample(f, (enum judged_metric)m, &j, label);
			free(label);
		}
	}
}

void metrics_write_health(FILE *f, const struct metrics_input *in)
{
	write_sinks(f, in);
	write_actions(f, in->audit);
	write_judged(f, in);
}
