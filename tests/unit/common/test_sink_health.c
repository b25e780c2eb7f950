// SPDX-License-Identifier: GPL-2.0
/* Output sinks' health and its metrics: once per new error, recovery, series by state. */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "report/metrics/metrics.h"
#include "common/sink_health.h"

Test(sink_health, logged_once_per_new_error_and_recovers)
{
	struct sink_health h = {0};

	sink_set_on(&h, true);
	cr_assert_eq(h.state, SINK_OK);
	cr_assert(sink_failed(&h, "write: No space left on device", 1));
	cr_assert_not(sink_failed(&h, "write: No space left on device", 1)); /* same error */
	cr_assert(sink_failed(&h, "open: Permission denied", 1));	     /* a new one */
	cr_assert_eq(h.state, SINK_FAILING);
	cr_assert_gt(h.failing_since_ms, 0);
	cr_assert_eq(h.errors, 3);
	cr_assert_eq(h.records_lost, 3);
	cr_assert(sink_succeeded(&h));
	cr_assert_not(sink_succeeded(&h));
	cr_assert_eq(h.state, SINK_OK);
	cr_assert_eq(h.failing_since_ms, 0);
	cr_assert_str_eq(h.last_error, "open: Permission denied"); /* kept for status */
	cr_assert(sink_failed(&h, "open: Permission denied", 0));  /* failing again: said again */
	sink_set_on(&h, false);
	cr_assert_eq(h.state, SINK_OFF);
	cr_assert_str_eq(sink_state_name(h.state), "off");
}

static bool one_judged(const void *ctx, size_t i, struct metrics_judged *out)
{
	(void)ctx;
	if (i == 1)
		return false; /* a member, not a tenant */
	*out = (struct metrics_judged){.cgroup = i ? "/b" : "/a\"q",
				       .class_name = i ? "good" : "abuser",
				       .scored = !i,
				       .score = 2.5,
				       .guarantee_ratio = i ? -1 : 0.8,
				       .shatters_asked = i ? 0 : 3};
	return true;
}

Test(sink_health, metrics_series)
{
	struct cgroup_table t;
	uint64_t stats[TAOD_STAT_MAX] = {0};
	struct sink_health hist = {0}, text = {0}, audit = {0};
	struct metrics_input in = {.bpf_stats = stats, .version = "v1", .down = true};
	char *out;

	cgroup_table_init(&t, 2);
	sink_set_on(&hist, true);
	sink_set_on(&text, true);
	sink_failed(&text, "No space left on device", 2);
	in.cgroups = &t;
	in.sinks[SINK_HISTORY] = &hist;
	in.sinks[SINK_TEXTFILE] = &text;
	in.sinks[SINK_AUDIT] = &audit; /* off */
	in.njudged = 3;
	in.judged = one_judged;
	out = metrics_text(&in);
	cr_assert_not_null(out);
	cr_assert(strstr(out, "taod_up 0\n"));
	cr_assert(strstr(out, "taod_sink_up{sink=\"history\"} 1\n"), "%s", out);
	cr_assert(strstr(out, "taod_sink_up{sink=\"textfile\"} 0\n"));
	cr_assert_null(strstr(out, "sink=\"audit\""));
	cr_assert(strstr(out, "taod_sink_records_lost_total{sink=\"textfile\"} 2\n"));
	cr_assert(strstr(out, "taod_sink_failing_since_seconds{sink=\"history\"} 0\n"));
	cr_assert(strstr(out, "# TYPE taod_actions_total counter\n"));
	cr_assert(strstr(out, "taod_cgroup_class{cgroup=\"/a\\\"q\",class=\"abuser\"} 1\n"));
	cr_assert(strstr(out, "taod_cgroup_class{cgroup=\"/b\",class=\"good\"} 1\n"));
	cr_assert(strstr(out, "taod_cgroup_score{cgroup=\"/a\\\"q\"} 2.5\n"));
	cr_assert_null(strstr(out, "taod_cgroup_score{cgroup=\"/b\"}"));
	cr_assert(
	    strstr(out, "taod_cgroup_guarantee_ratio{cgroup=\"/a\\\"q\"} 0.80000000000000004\n"),
	    "%s", out);
	cr_assert_null(strstr(out, "taod_cgroup_guarantee_ratio{cgroup=\"/b\"}"));
	/* TaodAbuserReturns joins the class with the shatters asked. */
	cr_assert(strstr(out, "# TYPE taod_cgroup_shatters_asked_total counter\n"));
	cr_assert(strstr(out, "taod_cgroup_shatters_asked_total{cgroup=\"/a\\\"q\"} 3\n"), "%s",
		  out);
	cr_assert(strstr(out, "taod_cgroup_shatters_asked_total{cgroup=\"/b\"} 0\n"));
	free(out);
	cgroup_table_free(&t);
}
