/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Work that waits on what a tenant controls, run off taod's loop.
 *
 * Reading a task's /proc/PID/smaps, pagemap or maps takes that task's mmap
 * lock, and a tenant that keeps it held for write (a thread mprotect()ing
 * the page tables of a large mapping over and over) makes every read wait:
 * seconds, minutes. Such work runs in a child forked for it: the child has
 * a copy-on-write snapshot of taod's state, does the work, writes its
 * result to a pipe and exits, while the loop watches the pipe and stays
 * free (ticks, the control socket, sd-event's watchdog pings).
 *
 * The child checks its time inside every read of a tenant's files
 * (offload_time_up()) and ends its work with what it has. A single read
 * that blocks past the time and a grace is ended by SIGKILL: a task waiting
 * for an mmap lock waits killably, where a thread could not be stopped.
 */
#ifndef TAOD_OFFLOAD_H
#define TAOD_OFFLOAD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <systemd/sd-event.h>

/* Children at once: one more is refused (-EBUSY), never queued here. */
#define OFFLOAD_MAX 4
/* Past its time, a child still blocked in a read is killed after this. */
#define OFFLOAD_GRACE_MS 5000
/* Result bytes read from a child at most: more makes it a failure. */
#define OFFLOAD_RESULT_MAX (8u << 20)

enum offload_how {
	OFFLOAD_FINISHED, /* the whole result arrived */
	OFFLOAD_KILLED,	  /* its time and the grace passed: killed */
	OFFLOAD_CRASHED,  /* it ended without its whole result */
	OFFLOAD_STOPPED,  /* taod is exiting: killed */
};

struct offload_end {
	enum offload_how how;
	uint64_t took_ms;
	char where[160];     /* the child's last offload_note(): what it was doing */
	char blocked_in[64]; /* when killed: the kernel function it waited in, "" if untold */
};

/* In the child: the result, malloc'd (*out NULL: none), and its length. */
typedef void (*offload_work_fn)(void *arg, char **out, size_t *len);
/* On the loop: the result (NULL unless OFFLOAD_FINISHED) and how it ended. */
typedef void (*offload_done_fn)(void *ctx, const char *out, size_t len,
				const struct offload_end *end);

/*
 * Runs @work(@arg) in a child given @time_ms (OFFLOAD_GRACE_MS more before
 * it is killed). Returns 0, after which @done(@ctx) is called exactly once
 * from @e's loop (or from offload_stop_all()); -EBUSY when OFFLOAD_MAX
 * children run; -errno when no child could be made. Never calls @done
 * when it fails.
 */
int offload_start(sd_event *e, uint64_t time_ms, offload_work_fn work, void *arg,
		  offload_done_fn done, void *ctx);
/* Tests shorten the grace (OFFLOAD_GRACE_MS by default). */
void offload_set_grace_ms(uint64_t ms);
/* Children running now. */
unsigned offload_running(void);
/* Kills every child and calls its @done (OFFLOAD_STOPPED); taod exiting. */
void offload_stop_all(void);
/* Reaps killed children that had not exited yet; call once per tick. How many are left. */
unsigned offload_reap(void);
/* A sentence for a failed end: "killed after 15 s while reading ... (waiting in ...)". */
void offload_end_text(const struct offload_end *end, char *buf, size_t len);

/* In a child: whether its time is up. Always false on the loop. */
bool offload_time_up(void);
/* In a child: what it does now, told if it is killed ("reading /proc/12/smaps"). */
void offload_note(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Whether this process is an offload child. */
bool offload_in_child(void);

#endif
