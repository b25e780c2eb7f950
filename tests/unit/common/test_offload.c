// SPDX-License-Identifier: GPL-2.0
/*
 * Work off the loop (common/offload.h): real children, a real sd-event
 * loop. The result arrives whole and once; a child sees its time run out
 * inside its work; one blocked past its time and the grace is killed and
 * says where it was; a short result is a crash; more than OFFLOAD_MAX
 * children are refused; taod exiting stops them all.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/clock.h"
#include "common/offload.h"

static sd_event *loop;
static int calls;
static struct offload_end last;
static char got[256];
static size_t got_len;

static void setup(void)
{
	cr_assert_eq(sd_event_new(&loop), 0);
	calls = 0;
	got_len = 0;
	memset(&last, 0, sizeof(last));
	offload_set_grace_ms(OFFLOAD_GRACE_MS);
}

static void teardown(void)
{
	offload_stop_all();
	sd_event_unref(loop);
}

TestSuite(offload, .init = setup, .fini = teardown);

static void done(void *ctx, const char *out, size_t len, const struct offload_end *end)
{
	(void)ctx;
	calls++;
	last = *end;
	got_len = out ? len : 0;
	if (out)
		memcpy(got, out, len < sizeof(got) ? len : sizeof(got));
}

/* Runs the loop until @n ends were told, or @limit_ms. */
static void run_until(int n, uint64_t limit_ms)
{
	uint64_t end = monotonic_ms() + limit_ms;

	while (calls < n && monotonic_ms() < end)
		cr_assert_geq(sd_event_run(loop, 100 * 1000), 0);
}

/* The child's pid and whether it is a child, as text. */
static void who(void *arg, char **out, size_t *len)
{
	(void)arg;
	*out = malloc(64);
	*len = (size_t)snprintf(*out, 64, "%d %d", (int)getpid(), offload_in_child());
}

Test(offload, the_result_arrives_whole_once_from_another_process)
{
	int pid, child;

	cr_assert_eq(offload_start(loop, 1000, who, NULL, done, NULL), 0);
	cr_assert_eq(calls, 0, "nothing is told before the loop runs");
	run_until(1, 5000);
	cr_assert_eq(calls, 1);
	cr_assert_eq(last.how, OFFLOAD_FINISHED);
	got[got_len] = '\0';
	cr_assert_eq(sscanf(got, "%d %d", &pid, &child), 2, "%s", got);
	cr_assert_neq(pid, getpid());
	cr_assert_eq(child, 1);
	cr_assert_not(offload_in_child());
	cr_assert_not(offload_time_up(), "the loop has no time limit");
	cr_assert_eq(offload_running(), 0);
}

/* Waits inside its work until its time is up, as a read of /proc would. */
static void until_time_up(void *arg, char **out, size_t *len)
{
	uint64_t t0 = monotonic_ms();

	(void)arg;
	while (!offload_time_up())
		usleep(1000);
	*out = malloc(32);
	*len = (size_t)snprintf(*out, 32, "%llu", (unsigned long long)(monotonic_ms() - t0));
}

Test(offload, a_child_sees_its_time_run_out_inside_its_work)
{
	cr_assert_eq(offload_start(loop, 300, until_time_up, NULL, done, NULL), 0);
	run_until(1, 5000);
	cr_assert_eq(last.how, OFFLOAD_FINISHED);
	got[got_len] = '\0';
	cr_assert_geq(atoi(got), 300, "%s", got);
	cr_assert_lt(atoi(got), 2000, "%s", got);
}

/* Blocks where no time check reaches: a read waiting for a lock. */
static void blocks(void *arg, char **out, size_t *len)
{
	(void)arg;
	(void)out;
	(void)len;
	offload_note("reading /proc/%d/smaps", 1234);
	pause();
}

Test(offload, a_child_blocked_past_its_time_and_grace_is_killed_and_says_where)
{
	char text[320];

	offload_set_grace_ms(200);
	cr_assert_eq(offload_start(loop, 200, blocks, NULL, done, NULL), 0);
	run_until(1, 5000);
	cr_assert_eq(calls, 1);
	cr_assert_eq(last.how, OFFLOAD_KILLED);
	cr_assert_geq(last.took_ms, 400);
	cr_assert_str_eq(last.where, "reading /proc/1234/smaps");
	offload_end_text(&last, text, sizeof(text));
	cr_assert(strstr(text, "killed after"), "%s", text);
	cr_assert(strstr(text, "while reading /proc/1234/smaps"), "%s", text);
	cr_assert_eq(got_len, 0, "no result from a killed child");
	for (int i = 0; i < 100 && offload_reap(); i++)
		usleep(10000);
	cr_assert_eq(offload_reap(), 0, "the killed child was reaped");
}

static void dies(void *arg, char **out, size_t *len)
{
	(void)arg;
	(void)out;
	(void)len;
	_exit(3);
}

Test(offload, a_child_that_ends_without_its_result_crashed)
{
	cr_assert_eq(offload_start(loop, 1000, dies, NULL, done, NULL), 0);
	run_until(1, 5000);
	cr_assert_eq(last.how, OFFLOAD_CRASHED);
	cr_assert_eq(got_len, 0);
}

Test(offload, more_than_the_most_children_are_refused_and_exit_stops_them)
{
	for (int i = 0; i < OFFLOAD_MAX; i++)
		cr_assert_eq(offload_start(loop, 10000, blocks, NULL, done, NULL), 0);
	cr_assert_eq(offload_running(), OFFLOAD_MAX);
	cr_assert_eq(offload_start(loop, 10000, blocks, NULL, done, NULL), -EBUSY);
	offload_stop_all();
	cr_assert_eq(calls, OFFLOAD_MAX, "each told once");
	cr_assert_eq(last.how, OFFLOAD_STOPPED);
	cr_assert_eq(offload_running(), 0);
}
