// SPDX-License-Identifier: GPL-2.0
#include "log.h"
#include "utf8.h"

#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>
#include <systemd/sd-journal.h>
#include <time.h>

static const char *log_ident = "taod";
static int log_max_level = LOG_INFO;
static bool log_to_journal;
static uint64_t repeats[LOG_REPEAT_MAX];

static const char *const message_ids[LOG_MSG_MAX] = {
#define LOG_MSG_ROW(name, id) [name] = id,
    LOG_MESSAGE_IDS(LOG_MSG_ROW)
#undef LOG_MSG_ROW
};

static const char *const repeat_keys[LOG_REPEAT_MAX] = {
#define LOG_REPEAT_ROW(name, key) [name] = key,
    LOG_REPEATS(LOG_REPEAT_ROW)
#undef LOG_REPEAT_ROW
};

void log_init(const char *ident)
{
	log_ident = ident;
	log_to_journal = getenv("JOURNAL_STREAM") != NULL;
}

void log_set_max_level(int level)
{
	log_max_level = level;
}

/* "KEY=value" into @v, when there is a value; the count of entries added. */
static int field(struct iovec *v, char *buf, size_t len, const char *key, const char *value)
{
	if (!value || !value[0])
		return 0;
	/* A field's value may hold any byte: sendv frames it by length. */
	snprintf(buf, len, "%s=%s", key, value);
	v->iov_base = buf;
	v->iov_len = strlen(buf);
	return 1;
}

/* The native journal protocol: 0, or a negative errno (no journald). */
static int send_journal(int level, const struct log_fields *f, const char *msg)
{
	char b[8][4200], prio[2];
	struct iovec v[8];
	int n = 0;

	prio[0] = (char)('0' + (level & 7));
	prio[1] = '\0';
	n += field(&v[n], b[n], sizeof(b[n]), "MESSAGE", msg);
	n += field(&v[n], b[n], sizeof(b[n]), "PRIORITY", prio);
	n += field(&v[n], b[n], sizeof(b[n]), "SYSLOG_IDENTIFIER", log_ident);
	if (f) {
		n += field(&v[n], b[n], sizeof(b[n]), "MESSAGE_ID",
			   (unsigned)f->id < LOG_MSG_MAX ? message_ids[f->id] : NULL);
		n += field(&v[n], b[n], sizeof(b[n]), "TAOD_CGROUP", f->cgroup);
		n += field(&v[n], b[n], sizeof(b[n]), "TAOD_ACTION", f->action);
		n += field(&v[n], b[n], sizeof(b[n]), "TAOD_RESULT", f->result);
		n += field(&v[n], b[n], sizeof(b[n]), "TAOD_POLICY", f->policy);
	}
	return sd_journal_sendv(v, n);
}

/* Local time to the millisecond: foreground lines say when. */
static void stamp(char *buf, size_t len)
{
	struct timespec ts;
	struct tm tm;

	clock_gettime(CLOCK_REALTIME, &ts);
	localtime_r(&ts.tv_sec, &tm);
	size_t n = strftime(buf, len, "%Y-%m-%dT%H:%M:%S", &tm);
	snprintf(buf + n, len - n, ".%03ld", ts.tv_nsec / 1000000);
}

static void vlog(int level, const struct log_fields *f, const char *fmt, va_list ap)
{
	char msg[2048], safe[4096], when[40];

	if (level > log_max_level)
		return;
	vsnprintf(msg, sizeof(msg), fmt, ap);
	/* One record per line: a newline in a logged name must not forge another. */
	text_escape(msg, safe, sizeof(safe), false);
	if (log_to_journal) {
		/* journald parses "<N>" prefixes on its stream connections. */
		if (send_journal(level, f, safe) < 0)
			fprintf(stderr, "<%d>%s\n", level, safe);
		return;
	}
	stamp(when, sizeof(when));
	fprintf(stderr, "%s %s: %s\n", when, log_ident, safe);
}

void log_msg(int level, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vlog(level, NULL, fmt, ap);
	va_end(ap);
}

void log_struct(int level, const struct log_fields *f, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vlog(level, f, fmt, ap);
	va_end(ap);
}

void log_repeated(enum log_repeat r, int level, const char *fmt, ...)
{
	struct log_fields f = {.id = LOG_MSG_REPEAT};
	char msg[2048];
	va_list ap;

	if ((unsigned)r >= LOG_REPEAT_MAX || repeats[r]++)
		return;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	log_struct(level, &f, "%s (said once; repeats are counted in taoctl status: %s)", msg,
		   repeat_keys[r]);
}

uint64_t log_repeat_count(enum log_repeat r)
{
	return (unsigned)r < LOG_REPEAT_MAX ? repeats[r] : 0;
}

const char *log_repeat_key(enum log_repeat r)
{
	return (unsigned)r < LOG_REPEAT_MAX ? repeat_keys[r] : "";
}

int log_errno(int level, int r, const char *what)
{
	if (r < 0)
		log_msg(level, "%s: %s", what, strerror(-r));
	return r;
}
