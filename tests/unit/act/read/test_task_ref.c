// SPDX-License-Identifier: GPL-2.0
/*
 * A pidfd outlives pid reuse: a task judged, reaped and replaced by another
 * under the same pid (made with clone3 set_tid) is never acted on.
 */
#define _GNU_SOURCE
#include <criterion/criterion.h>
#include <errno.h>
#include <linux/capability.h>
#include <linux/sched.h>
#include <signal.h>
#include <stdint.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "act/read/proc_tasks.h"
#include "act/stock/thp_split_pageout.h"
#include "common/rootfs.h"

static pid_t sleeper_with_pid(pid_t want)
{
	struct clone_args args = {.exit_signal = SIGCHLD};
	pid_t tid = want;
	long pid;

	if (want) {
		args.set_tid = (uint64_t)(uintptr_t)&tid;
		args.set_tid_size = 1;
	}
	pid = syscall(SYS_clone3, &args, sizeof(args));
	if (pid == 0) {
		pause();
		_exit(0);
	}
	return (pid_t)pid;
}

static void reap(pid_t pid)
{
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
}

Test(task_ref, a_reused_pid_is_not_the_task_held)
{
	struct task_ref t;
	pid_t first, second;
	uint64_t page = 0x7f0000000000;

	rootfs_set("/");
	first = sleeper_with_pid(0);
	cr_assert_gt(first, 0);
	cr_assert_eq(task_ref_open(&t, first), 0);
	cr_assert(task_ref_alive(&t));
	reap(first);
	second = sleeper_with_pid(first);
	if (second < 0) {
		task_ref_close(&t);
		cr_skip_test("clone3 set_tid refused (%s): needs root and kernel 5.5+",
			     strerror(errno));
	}
	cr_assert_eq(second, first, "the pid is reused");
	cr_assert(proc_task_exists(first), "by pid, the task looks alive");
	cr_assert_not(task_ref_alive(&t), "by pidfd, the judged task is gone");
	/* MADV_PAGEOUT through the pidfd reaches nobody, not the pid's new task. */
	cr_assert_eq(thp_pageout_pages(&t, &page, 1), -ESRCH);
	task_ref_close(&t);
	reap(second);
}

Test(task_ref, a_gone_pid_cannot_be_opened)
{
	struct task_ref t;
	pid_t pid = sleeper_with_pid(0);

	rootfs_set("/");
	reap(pid);
	cr_assert_eq(task_ref_open(&t, pid), -ESRCH);
	task_ref_close(&t);
	cr_assert_eq(task_ref_open(&t, 0), -ESRCH);
	task_ref_close(&t);
}

/* Sets CAP_KILL in the effective set (it stays permitted): 0 or -errno. */
static int cap_kill_effective(bool on)
{
	struct __user_cap_header_struct h = {.version = _LINUX_CAPABILITY_VERSION_3};
	struct __user_cap_data_struct c[2];

	if (syscall(SYS_capget, &h, c))
		return -errno;
	if (on)
		c[0].effective |= 1u << CAP_KILL;
	else
		c[0].effective &= ~(1u << CAP_KILL);
	return syscall(SYS_capset, &h, c) ? -errno : 0;
}

/* The unit has no CAP_KILL: another user's live task answers EPERM, not "gone". */
Test(task_ref, another_users_task_is_alive_without_cap_kill)
{
	struct task_ref t;
	int hold[2];
	pid_t pid;
	char c;

	/* The child lives until killed or until this test's process ends. */
	cr_assert_eq(pipe(hold), 0);
	pid = fork();
	if (pid == 0) {
		close(hold[1]);
		if (setuid(65534) || read(hold[0], &c, 1) < 0)
			_exit(1);
		_exit(0);
	}
	cr_assert_gt(pid, 0);
	close(hold[0]);
	rootfs_set("/");
	cr_assert_eq(task_ref_open(&t, pid), 0);
	cr_assert_eq(cap_kill_effective(false), 0);
	/* Until the child runs as nobody: then signalling it is EPERM. */
	for (int i = 0; i < 500 && !kill(pid, 0); i++)
		usleep(10000);
	if (!kill(pid, 0) || errno != EPERM) {
		cap_kill_effective(true);
		reap(pid);
		cr_skip_test("cannot drop CAP_KILL or become nobody here");
	}
	cr_assert(task_ref_alive(&t), "alive, only not ours to signal");
	cr_assert_eq(cap_kill_effective(true), 0);
	reap(pid);
	cr_assert_eq(cap_kill_effective(false), 0);
	cr_assert_not(task_ref_alive(&t), "exited and reaped: gone");
	task_ref_close(&t);
}
