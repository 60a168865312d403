/* traceread.c - the dependency tracer's stream, read (see traceread.h). */
#include "trace/traceread.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "trace/elfinfo.h"
#include "trace/protocol.h"
#include "base/xalloc.h"

#define TRACE_LINE_MAX 8192

/* path with "." and ".." segments and repeated slashes removed; absolute
 * in, absolute out; the caller frees it. */
static char *clean_path(const char *path)
{
	struct buf out = BUF_INIT;
	const char *p = path;
	while (*p) {
		while (*p == '/')
			p++;
		size_t n = strcspn(p, "/");
		if (!n)
			break;
		if (n == 2 && p[0] == '.' && p[1] == '.') {
			char *slash = out.len ? strrchr(out.data, '/') : NULL;
			buf_truncate(&out, slash ? (size_t)(slash - out.data) : 0);
		} else if (!(n == 1 && p[0] == '.')) {
			buf_addc(&out, '/');
			buf_add(&out, p, n);
		}
		p += n;
	}
	if (!out.len)
		buf_addc(&out, '/');
	return buf_detach(&out, NULL);
}

/* Whether the n bytes at p are an absolute path clean_path would leave
 * as it is: most paths a tracer sends, copied then without a rebuild. */
static bool is_clean(const char *p, size_t n)
{
	if (!n || p[0] != '/')
		return false;
	if (n > 1 && p[n - 1] == '/')
		return false;
	for (const char *s = p; s; s = memchr(s + 1, '/', n - (size_t)(s + 1 - p))) {
		const char *seg = s + 1;
		size_t left = n - (size_t)(seg - p);
		if (!left)
			break;
		if (seg[0] == '/' ||
		    (seg[0] == '.' && (left == 1 || seg[1] == '/' || (seg[1] == '.' && (left == 2 || seg[2] == '/')))))
			return false;
	}
	return true;
}

/* The reason an X line gives, as the log will show it: printable ASCII,
 * at most 100 bytes. */
static char *lost_reason(const char *s, size_t len)
{
	struct buf b = BUF_INIT;
	for (size_t i = 0; i < len && i < 100; i++)
		buf_addc(&b, s[i] >= 0x20 && s[i] < 0x7f ? s[i] : '?');
	buf_adds(&b, "");
	return buf_detach(&b, NULL);
}

/* The decimal number at line[2..len). */
static unsigned long line_number(const char *line, size_t len)
{
	unsigned long k = 0;
	for (size_t i = 2; i < len && line[i] >= '0' && line[i] <= '9'; i++)
		k = k * 10 + (unsigned long)(line[i] - '0');
	return k;
}

/* One "R|E|L|W PATH", "H PID", "X REASON", "B N" or "D STATUS" line of
 * the tracer. */
static void trace_line(const char *dir, const char *line, size_t len, struct trace_read *tr,
		       const struct trace_lists *to)
{
	struct strlist *list = NULL;
	if (len < 3 || line[1] != ' ' || memchr(line, '\0', len))
		return;
	switch (line[0]) {
	case TRACE_HELLO: {
		unsigned long pid = line_number(line, len);
		tr->hello = true;
		if (tr->slot && !tr->pid && pid > 1 && pid <= INT_MAX)
			tr->pid = (long)pid;
		return;
	}
	case TRACE_DIED:
		if (tr->slot)
			tr->died = (int)(line_number(line, len) & 0xffff); /* a wait status */
		return;
	case TRACE_LOST:
		if (!tr->lost)
			tr->lost = lost_reason(line + 2, len - 2);
		return;
	case TRACE_BOUNDARY:
		tr->boundary = line_number(line, len);
		if (tr->want_conn && tr->in_conn)
			tr->conn_done = true;
		tr->in_conn = false;
		return;
	case TRACE_ACCEPTED: tr->in_conn = tr->want_conn && line_number(line, len) == tr->want_conn; return;
	case TRACE_READ: list = to->read; break;
	case TRACE_EXIST: list = to->exist; break;
	case TRACE_LISTED: list = to->listed; break;
	case TRACE_WRITTEN: list = to->written; break;
	default: return;
	}
	if (tr->want_conn && !tr->in_conn)
		return; /* another connection's: one cgisnap gave up on */
	if (is_clean(line + 2, len - 2)) {
		strlist_add_owned(list, xstrndup(line + 2, len - 2));
		return;
	}
	char *raw = line[2] == '/' ? xstrndup(line + 2, len - 2)
				   : xasprintf("%s/%.*s", dir, (int)(len - 2), line + 2);
	strlist_add_owned(list, clean_path(raw));
	free(raw);
}

void trace_read_add(struct trace_read *tr, const char *data, size_t n)
{
	buf_add(&tr->pending, data, n);
}

bool trace_read_holds(const struct trace_read *tr, char kind)
{
	const char *p = tr->pending.data, *end = p + tr->pending.len;
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		if (!nl)
			return false;
		if (nl - p >= 2 && p[0] == kind && p[1] == ' ')
			return true;
		p = nl + 1;
	}
	return false;
}

void trace_read_want(struct trace_read *tr, unsigned long id)
{
	tr->want_conn = id;
	tr->in_conn = tr->conn_done = false;
}

bool trace_read_done(const struct trace_read *tr)
{
	if (tr->want_conn)
		return tr->conn_done;
	return tr->stop_at && tr->boundary >= tr->stop_at;
}

void trace_read_feed(struct trace_read *tr, const char *dir, const char *data, size_t n,
		     const struct trace_lists *to)
{
	struct buf *pending = &tr->pending;
	buf_add(pending, data, n);
	size_t start = 0;
	char *nl;
	while (!trace_read_done(tr) && tr->died < 0 && (nl = memchr(pending->data + start, '\n', pending->len - start))) {
		size_t len = (size_t)(nl - (pending->data + start));
		if (len <= TRACE_LINE_MAX)
			trace_line(dir, pending->data + start, len, tr, to);
		start += len + 1;
	}
	memmove(pending->data, pending->data + start, pending->len - start);
	buf_truncate(pending, pending->len - start);
	/* An endless line; lines kept past a boundary are the tracer's
	 * own, each below PIPE_BUF, and few: a worker waits in accept. */
	if (!trace_read_done(tr) && tr->died < 0 && pending->len > TRACE_LINE_MAX * 2)
		buf_reset(pending);
}

static void sort_unique(struct strlist *l)
{
	strlist_sort(l);
	strlist_uniq(l);
}

void trace_read_finish(const struct trace_lists *lists)
{
	sort_unique(lists->read);
	sort_unique(lists->exist);
	sort_unique(lists->listed);
	sort_unique(lists->written);
}

const char *trace_read_gap(const struct trace_read *tr, const char *prog)
{
	if (tr->hello && !tr->lost)
		return NULL;
	if (tr->lost)
		return tr->lost;
	if (elf_is_static(prog))
		return "is statically linked";
	return "ran without the tracer (LD_PRELOAD had no effect)";
}

void trace_read_release(struct trace_read *tr)
{
	buf_release(&tr->pending);
	free(tr->lost);
	tr->lost = NULL;
}
