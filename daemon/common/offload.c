// SPDX-License-Identifier: GPL-2.0
/*
 * Work run in a forked child (offload.h). The result goes up a pipe as a
 * length and the bytes: a short one is a crash, whatever the exit status
 * says. What the child does now is written to a page shared with the loop,
 * so a kill can say where it hung; /proc/PID/wchan says in what.
 */
#define _GNU_SOURCE
#include "offload.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "clock.h"
#include "log.h"
#include "rootfs.h"

#define NOTE_BYTES   160
#define REAP_MAX     64 /* killed children not yet gone: more and no child is made */
#define HEADER_BYTES sizeof(uint64_t)

struct offload {
	sd_event_source *io, *timer;
	pid_t pid;
	int fd;
	uint64_t start_ms;
	char *note; /* NOTE_BYTES shared with the child */
	char *buf;  /* header, then the result */
	size_t got, want;
	offload_done_fn done;
	void *ctx;
};

static struct offload *running[OFFLOAD_MAX];
static uint64_t grace_ms = OFFLOAD_GRACE_MS;
static pid_t unreaped[REAP_MAX];
static unsigned n_unreaped;

/* The child's side. */
static bool in_child;
static uint64_t child_end_ms;
static char *child_note;

bool offload_in_child(void)
{
	return in_child;
}

bool offload_time_up(void)
{
	return in_child && monotonic_ms() >= child_end_ms;
}

void offload_note(const char *fmt, ...)
{
	char text[NOTE_BYTES];
	va_list ap;

	if (!child_note)
		return;
	va_start(ap, fmt);
	vsnprintf(text, sizeof(text), fmt, ap);
	va_end(ap);
	memcpy(child_note, text, sizeof(text));
}

void offload_set_grace_ms(uint64_t ms)
{
	grace_ms = ms;
}

unsigned offload_running(void)
{
	unsigned n = 0;

	for (int i = 0; i < OFFLOAD_MAX; i++)
		n += running[i] != NULL;
	return n;
}

static bool write_all(int fd, const void *p, size_t len)
{
	const char *c = p;

	while (len) {
		ssize_t n = write(fd, c, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return false;
		c += n;
		len -= (size_t)n;
	}
	return true;
}

/* Never returns: the child exits without running taod's exit handlers. */
static void child_main(int fd, char *note, uint64_t time_ms, offload_work_fn work, void *arg)
{
	uint64_t len64;
	char *out = NULL;
	size_t len = 0;

	/* Dies with taod; a taod that died before this line is already gone. */
	if (prctl(PR_SET_PDEATHSIG, SIGKILL) || getppid() == 1)
		_exit(1);
	for (int i = 0; i < OFFLOAD_MAX; i++)
		if (running[i])
			close(running[i]->fd);
	in_child = true;
	child_end_ms = monotonic_ms() + time_ms;
	child_note = note;
	unsetenv("NOTIFY_SOCKET"); /* the watchdog is the loop's to ping */
	work(arg, &out, &len);
	len64 = out ? len : 0;
	if (!write_all(fd, &len64, sizeof(len64)) || (len64 && !write_all(fd, out, len)))
		_exit(1);
	_exit(0);
}

static void reap_later(pid_t pid)
{
	if (waitpid(pid, NULL, WNOHANG) == 0 && n_unreaped < REAP_MAX)
		unreaped[n_unreaped++] = pid;
}

unsigned offload_reap(void)
{
	unsigned k = 0;

	for (unsigned i = 0; i < n_unreaped; i++)
		if (waitpid(unreaped[i], NULL, WNOHANG) == 0)
			unreaped[k++] = unreaped[i];
	n_unreaped = k;
	return k;
}

static void slot_free(struct offload *o)
{
	for (int i = 0; i < OFFLOAD_MAX; i++)
		if (running[i] == o)
			running[i] = NULL;
	sd_event_source_disable_unref(o->io);
	sd_event_source_disable_unref(o->timer);
	close(o->fd);
	munmap(o->note, NOTE_BYTES);
	free(o->buf);
	free(o);
}

/* Calls @done once, then forgets the child (reaped now or later). */
static void finish(struct offload *o, enum offload_how how, const char *blocked_in)
{
	struct offload_end end = {.how = how};
	bool whole = how == OFFLOAD_FINISHED;
	uint64_t now = monotonic_ms();

	end.took_ms = now > o->start_ms ? now - o->start_ms : 0;
	memcpy(end.where, o->note, sizeof(end.where) - 1);
	snprintf(end.blocked_in, sizeof(end.blocked_in), "%s", blocked_in ? blocked_in : "");
	if (how != OFFLOAD_FINISHED)
		kill(o->pid, SIGKILL);
	reap_later(o->pid);
	o->done(o->ctx, whole && o->want ? o->buf + HEADER_BYTES : NULL, whole ? o->want : 0, &end);
	slot_free(o);
}

/* The header read: how much more to read, within OFFLOAD_RESULT_MAX. */
static bool header_read(struct offload *o)
{
	uint64_t len;
	char *b;

	memcpy(&len, o->buf, sizeof(len));
	if (len > OFFLOAD_RESULT_MAX)
		return false;
	b = realloc(o->buf, HEADER_BYTES + len);
	if (!b)
		return false;
	o->buf = b;
	o->want = len;
	return true;
}

static int on_readable(sd_event_source *s, int fd, uint32_t revents, void *user)
{
	struct offload *o = user;

	(void)s;
	(void)revents;
	for (;;) {
		size_t total = HEADER_BYTES + o->want;
		ssize_t n = read(fd, o->buf + o->got, total - o->got);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && errno == EAGAIN)
			return 0;
		if (n <= 0) { /* ended: whole only with every byte the header promised */
			bool whole = o->got == total && o->got >= HEADER_BYTES;

			finish(o, whole ? OFFLOAD_FINISHED : OFFLOAD_CRASHED, NULL);
			return 0;
		}
		o->got += (size_t)n;
		if (o->got == HEADER_BYTES && !o->want && !header_read(o)) {
			finish(o, OFFLOAD_CRASHED, NULL);
			return 0;
		}
	}
}

/* The kernel function a blocked task sleeps in ("" when running or untold). */
static void wchan_of(pid_t pid, char *buf, size_t len)
{
	char rel[48], path[PATH_MAX];
	ssize_t n;

	buf[0] = '\0';
	snprintf(rel, sizeof(rel), "/proc/%d/wchan", (int)pid);
	if (rootfs_path(path, sizeof(path), rel))
		return;
	n = read_file(path, buf, len);
	buf[n > 0 ? strcspn(buf, "\n") : 0] = '\0';
	if (!strcmp(buf, "0"))
		buf[0] = '\0';
}

static int on_time_up(sd_event_source *s, uint64_t usec, void *user)
{
	struct offload *o = user;
	char wchan[64];

	(void)s;
	(void)usec;
	wchan_of(o->pid, wchan, sizeof(wchan));
	finish(o, OFFLOAD_KILLED, wchan);
	return 0;
}

static int free_slot(void)
{
	if (n_unreaped >= REAP_MAX && offload_reap() >= REAP_MAX)
		return -EBUSY;
	for (int i = 0; i < OFFLOAD_MAX; i++)
		if (!running[i])
			return i;
	return -EBUSY;
}

/* The loop's side of a child just made: its pipe and its time watched. */
static int watch(sd_event *e, struct offload *o, uint64_t time_ms)
{
	uint64_t now_us;
	int r = sd_event_now(e, CLOCK_MONOTONIC, &now_us);

	if (r >= 0)
		r = sd_event_add_io(e, &o->io, o->fd, EPOLLIN, on_readable, o);
	if (r >= 0)
		r = sd_event_add_time(e, &o->timer, CLOCK_MONOTONIC,
				      now_us + (time_ms + grace_ms) * 1000, 0, on_time_up, o);
	return r < 0 ? r : 0;
}

static struct offload *offload_new(void)
{
	struct offload *o = calloc(1, sizeof(*o));

	if (!o)
		return NULL;
	o->fd = -1;
	o->buf = malloc(HEADER_BYTES);
	o->note = mmap(NULL, NOTE_BYTES, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (o->buf && o->note != MAP_FAILED)
		return o;
	if (o->note != MAP_FAILED)
		munmap(o->note, NOTE_BYTES);
	free(o->buf);
	free(o);
	return NULL;
}

int offload_start(sd_event *e, uint64_t time_ms, offload_work_fn work, void *arg,
		  offload_done_fn done, void *ctx)
{
	int slot = free_slot(), p[2], r;
	struct offload *o;

	if (slot < 0)
		return slot;
	o = offload_new();
	if (!o)
		return -ENOMEM;
	if (pipe2(p, O_CLOEXEC)) {
		r = -errno;
		slot_free(o);
		return r;
	}
	o->start_ms = monotonic_ms();
	o->done = done;
	o->ctx = ctx;
	o->pid = fork();
	if (o->pid == 0) {
		close(p[0]);
		child_main(p[1], o->note, time_ms, work, arg);
	}
	r = o->pid < 0 ? -errno : 0;
	close(p[1]);
	o->fd = p[0];
	fcntl(o->fd, F_SETFL, O_NONBLOCK);
	if (!r)
		r = watch(e, o, time_ms);
	if (r) {
		if (o->pid > 0)
			kill(o->pid, SIGKILL), reap_later(o->pid);
		slot_free(o);
		return r;
	}
	running[slot] = o;
	return 0;
}

void offload_stop_all(void)
{
	for (int i = 0; i < OFFLOAD_MAX; i++)
		if (running[i])
			finish(running[i], OFFLOAD_STOPPED, NULL);
	/* Killed children go at once unless stuck: wait a little for each. */
	for (int tries = 0; tries < 50 && offload_reap(); tries++)
		usleep(10000);
}

void offload_end_text(const struct offload_end *end, char *buf, size_t len)
{
	const char *how = end->how == OFFLOAD_KILLED	? "killed after"
			  : end->how == OFFLOAD_STOPPED ? "stopped (taod exiting) after"
			  : end->how == OFFLOAD_CRASHED ? "ended without a result after"
							: "finished after";
	int n = snprintf(buf, len, "%s %llu ms", how, (unsigned long long)end->took_ms);

	if (n > 0 && (size_t)n < len && end->where[0])
		n += snprintf(buf + n, len - (size_t)n, " while %s", end->where);
	if (n > 0 && (size_t)n < len && end->blocked_in[0])
		snprintf(buf + n, len - (size_t)n, " (waiting in the kernel's %s%s)",
			 end->blocked_in,
			 strstr(end->blocked_in, "rwsem") || strstr(end->blocked_in, "mmap_lock")
			     ? ": the task's mmap lock is held"
			     : "");
}
