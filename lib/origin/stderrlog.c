/* stderrlog.c - a program's stderr logged a line at a time (stderrlog.h),
 * for the CGI and FastCGI back ends. */
#include "origin/stderrlog.h"

#include <string.h>

#include "base/log.h"

void origin_log_init(struct origin_log *l, const char *target)
{
	l->target = target;
	buf_init(&l->line);
	l->cut = false;
}

static void log_line_end(struct origin_log *l)
{
	buf_truncate(&l->line, l->line.len - (l->line.len && l->line.data[l->line.len - 1] == '\r'));
	if (l->line.len || l->cut)
		log_raw("cgisnap: %s: %s%s", l->target, buf_str(&l->line), l->cut ? "..." : "");
	buf_reset(&l->line);
	l->cut = false;
}

void origin_log_feed(struct origin_log *l, const char *data, size_t n)
{
	while (n) {
		const char *nl = memchr(data, '\n', n);
		size_t chunk = nl ? (size_t)(nl - data) : n;
		size_t room = ORIGIN_LOG_LINE_MAX - l->line.len;
		if (chunk > room)
			l->cut = true;
		buf_add(&l->line, data, chunk < room ? chunk : room);
		if (!nl)
			return;
		log_line_end(l);
		data += chunk + 1;
		n -= chunk + 1;
	}
}

void origin_log_flush(struct origin_log *l)
{
	if (l->line.len || l->cut)
		log_line_end(l);
	buf_release(&l->line);
}
