/* serve/accesslog.c - the buffered combined-format access log (see
 * accesslog.h).
 *
 * Two locks: 'lock' guards the buffer that workers append to and is held
 * only for a memcpy; 'write_lock' is held by whoever writes a swapped-out
 * buffer to the file, so writes keep their order. A worker that wants to
 * flush only tries write_lock: when someone else is writing, it leaves its
 * lines for the next flush instead of waiting.
 */
#include "accesslog.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/buf.h"
#include "base/log.h"
#include "base/xalloc.h"

/* Beyond this much unwritten text (the disk is stuck), lines are dropped. */
#define ACCESSLOG_HARD_LIMIT (16 * ACCESSLOG_FLUSH_AT)

struct accesslog {
	pthread_mutex_t lock;
	pthread_mutex_t write_lock;
	struct buf pending;   /* lines not yet handed to a writer (lock) */
	struct buf writing;   /* the swapped-out lines (write_lock) */
	char *path;           /* NULL for standard output */
	int fd;
	int write_errno;      /* first write error since the last report (write_lock) */
	unsigned long dropped; /* lines dropped over the hard limit (lock) */
};

static const char *const month_names[12] = { "Jan", "Feb", "Mar", "Apr", "May", "Jun",
					     "Jul", "Aug", "Sep", "Oct", "Nov", "Dec" };

void accesslog_time(time_t t, char out[ACCESSLOG_TIME_LEN])
{
	struct tm tm;
	localtime_r(&t, &tm);
	int off = (int)(tm.tm_gmtoff / 60 % (24 * 60));
	char sign = off < 0 ? '-' : '+';
	if (off < 0)
		off = -off;
	snprintf(out, ACCESSLOG_TIME_LEN, "[%02d/%s/%04d:%02d:%02d:%02d %c%02d%02d]", tm.tm_mday,
		 month_names[tm.tm_mon], tm.tm_year + 1900, tm.tm_hour, tm.tm_min, tm.tm_sec, sign,
		 off / 60, off % 60);
}

/* A bounded writer into the caller's line buffer. */
struct line {
	char *p;
	size_t len, cap;
};

static void put(struct line *l, const char *s, size_t n)
{
	if (n > l->cap - l->len)
		n = l->cap - l->len;
	memcpy(l->p + l->len, s, n);
	l->len += n;
}

static void puts_(struct line *l, const char *s)
{
	put(l, s, strlen(s));
}

/* Append s escaped as Apache does, at most max bytes of output. */
static void put_escaped(struct line *l, const char *s, size_t max)
{
	static const char hex[] = "0123456789abcdef";
	size_t start = l->len;
	for (; s && *s; s++) {
		unsigned char c = (unsigned char)*s;
		char tmp[4];
		size_t n;
		if (c == '"' || c == '\\') {
			tmp[0] = '\\';
			tmp[1] = (char)c;
			n = 2;
		} else if (c < 0x20 || c >= 0x7f) {
			tmp[0] = '\\';
			tmp[1] = 'x';
			tmp[2] = hex[c >> 4];
			tmp[3] = hex[c & 15];
			n = 4;
		} else {
			tmp[0] = (char)c;
			n = 1;
		}
		if (l->len - start + n > max)
			break;
		put(l, tmp, n);
	}
}

size_t accesslog_format(char *out, const struct access_record *r)
{
	/* The quoted fields' shares keep the whole line under the maximum. */
	struct line l = { out, 0, ACCESSLOG_LINE_MAX - 1 };
	char num[32];

	puts_(&l, r->client ? r->client : "-");
	puts_(&l, " - - ");
	puts_(&l, r->time);
	puts_(&l, " \"");
	put_escaped(&l, r->method, 32);
	puts_(&l, " ");
	put_escaped(&l, r->target, 2048);
	puts_(&l, " ");
	put_escaped(&l, r->version, 32);
	snprintf(num, sizeof num, "\" %d ", r->status);
	puts_(&l, num);
	if (r->bytes > 0) {
		snprintf(num, sizeof num, "%lld", r->bytes);
		puts_(&l, num);
	} else {
		puts_(&l, "-");
	}
	puts_(&l, " \"");
	put_escaped(&l, r->referer ? r->referer : "-", 1024);
	puts_(&l, "\" \"");
	put_escaped(&l, r->user_agent ? r->user_agent : "-", 768);
	puts_(&l, "\"");
	out[l.len++] = '\n';
	return l.len;
}

static int open_file(const char *path)
{
	return open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
}

struct accesslog *accesslog_open(const char *path, char *err)
{
	int fd = STDOUT_FILENO;
	if (strcmp(path, "-")) {
		fd = open_file(path);
		if (fd < 0) {
			err_sys(err, "cannot open access log '%s'", path);
			return NULL;
		}
	}
	struct accesslog *l = xcalloc(1, sizeof *l);
	pthread_mutex_init(&l->lock, NULL);
	pthread_mutex_init(&l->write_lock, NULL);
	l->path = strcmp(path, "-") ? xstrdup(path) : NULL;
	l->fd = fd;
	return l;
}

/* Write the pending lines out; the caller holds write_lock. */
static void write_pending(struct accesslog *l)
{
	pthread_mutex_lock(&l->lock);
	struct buf tmp = l->writing;
	l->writing = l->pending;
	l->pending = tmp;
	pthread_mutex_unlock(&l->lock);

	const char *p = l->writing.data;
	size_t left = l->writing.len;
	while (left) {
		ssize_t n = write(l->fd, p, left);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			if (!l->write_errno)
				l->write_errno = n < 0 ? errno : EIO;
			break;
		}
		p += n;
		left -= (size_t)n;
	}
	buf_reset(&l->writing);
}

void accesslog_add(struct accesslog *l, const char *line, size_t len)
{
	pthread_mutex_lock(&l->lock);
	if (l->pending.len >= ACCESSLOG_HARD_LIMIT) {
		l->dropped++;
		pthread_mutex_unlock(&l->lock);
		return;
	}
	buf_add(&l->pending, line, len);
	bool full = l->pending.len >= ACCESSLOG_FLUSH_AT;
	pthread_mutex_unlock(&l->lock);

	if (full && !pthread_mutex_trylock(&l->write_lock)) {
		write_pending(l);
		pthread_mutex_unlock(&l->write_lock);
	}
}

int accesslog_flush(struct accesslog *l, char *err)
{
	pthread_mutex_lock(&l->write_lock);
	write_pending(l);
	int e = l->write_errno;
	l->write_errno = 0;
	pthread_mutex_unlock(&l->write_lock);

	pthread_mutex_lock(&l->lock);
	unsigned long dropped = l->dropped;
	l->dropped = 0;
	pthread_mutex_unlock(&l->lock);

	const char *name = l->path ? l->path : "standard output";
	if (e) {
		errno = e;
		return err_sys(err, "cannot write access log '%s'", name);
	}
	if (dropped)
		return err_set(err, "access log '%s' is not being written: %lu lines dropped", name,
			       dropped);
	return 0;
}

int accesslog_reopen(struct accesslog *l, char *err)
{
	int rc = accesslog_flush(l, err);
	if (!l->path)
		return rc;
	int fd = open_file(l->path);
	if (fd < 0)
		return err_sys(err, "cannot reopen access log '%s'", l->path);
	pthread_mutex_lock(&l->write_lock);
	int old = l->fd;
	l->fd = fd;
	pthread_mutex_unlock(&l->write_lock);
	close(old);
	return rc;
}

void accesslog_close(struct accesslog *l)
{
	char err[ERR_LEN];
	if (!l)
		return;
	if (accesslog_flush(l, err) < 0)
		log_warn("%s", err);
	if (l->path)
		close(l->fd);
	buf_release(&l->pending);
	buf_release(&l->writing);
	pthread_mutex_destroy(&l->lock);
	pthread_mutex_destroy(&l->write_lock);
	free(l->path);
	free(l);
}
