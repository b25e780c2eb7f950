// SPDX-License-Identifier: GPL-2.0
/*
 * keepalive_ping(): "WATCHDOG=1" to $NOTIFY_SOCKET when systemd asked for
 * pings, at most once a second, nothing when it did not ask.
 */
#define _GNU_SOURCE
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "common/keepalive.h"

#include "../support/scratch.h"

static char dir[SCRATCH_DIR_MAX];
static int sock = -1;

/* A notify socket as systemd's, named in the environment. */
static void setup(void)
{
	struct sockaddr_un sa = {.sun_family = AF_UNIX};

	cr_assert_not_null(scratch_make(dir, "keepalive"));
	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s/notify", dir);
	sock = socket(AF_UNIX, SOCK_DGRAM | SOCK_NONBLOCK, 0);
	cr_assert_geq(sock, 0);
	cr_assert_eq(bind(sock, (struct sockaddr *)&sa, sizeof(sa)), 0);
	setenv("NOTIFY_SOCKET", sa.sun_path, 1);
	unsetenv("WATCHDOG_USEC");
	unsetenv("WATCHDOG_PID");
}

static void teardown(void)
{
	close(sock);
	unsetenv("NOTIFY_SOCKET");
	scratch_remove(dir);
}

TestSuite(keepalive, .init = setup, .fini = teardown);

/* The datagrams sent so far, joined by '|'. */
static const char *received(void)
{
	static char all[256];
	char one[64];
	ssize_t n;

	all[0] = '\0';
	while ((n = recv(sock, one, sizeof(one) - 1, 0)) > 0) {
		one[n] = '\0';
		strncat(all, all[0] ? "|" : "", sizeof(all) - strlen(all) - 1);
		strncat(all, one, sizeof(all) - strlen(all) - 1);
	}
	return all;
}

static void watchdog_asked(void)
{
	char pid[16];

	snprintf(pid, sizeof(pid), "%d", (int)getpid());
	setenv("WATCHDOG_USEC", "30000000", 1);
	setenv("WATCHDOG_PID", pid, 1);
}

Test(keepalive, keepalive_ping_sends_nothing_unless_systemd_asked)
{
	cr_assert_eq(keepalive_ping(), 0);
	cr_assert_str_eq(received(), "");
}

Test(keepalive, keepalive_ping_pings_once_a_second_at_most)
{
	watchdog_asked();
	cr_assert_eq(keepalive_ping(), 1);
	cr_assert_eq(keepalive_ping(), 0);
	cr_assert_str_eq(received(), "WATCHDOG=1");
	usleep(1100 * 1000);
	cr_assert_eq(keepalive_ping(), 1);
	cr_assert_str_eq(received(), "WATCHDOG=1");
}

Test(keepalive, keepalive_ping_leaves_another_process_watchdog_alone)
{
	watchdog_asked();
	setenv("WATCHDOG_PID", "1", 1); /* meant for someone else */
	cr_assert_eq(keepalive_ping(), 0);
	cr_assert_str_eq(received(), "");
}
