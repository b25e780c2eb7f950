// SPDX-License-Identifier: GPL-2.0
/*
 * A pidfd outlives pid reuse: a task judged, reaped and replaced by another
 * under the same pid (made with clone3 set_tid) is never acted on.
 */
#define _GNU_SOURCE
#include <criterion/criterion.h>
#include <errno.h>
#include <linux/sched.h>
#include <signal.h>
#include <stdint.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "taod/act_parts.h"
#include "taod/rootfs.h"

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
