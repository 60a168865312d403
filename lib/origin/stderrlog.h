/* stderrlog.h - a program's stderr, logged a line at a time as
 * "cgisnap: TARGET: LINE" (log_raw): the CGI back end's (cgi.c) and the
 * FastCGI one's FCGI_STDERR (fcgi.c).
 *
 * Steps: origin_log_init() with the request's target (borrowed: it must
 * outlive the log); origin_log_feed() the bytes as they come, split
 * anywhere; origin_log_flush() at the end, for a last line without a
 * newline, which also frees what the log holds. Lines are cut at
 * ORIGIN_LOG_LINE_MAX bytes, marked "...".
 */
#ifndef CGISNAP_STDERRLOG_H
#define CGISNAP_STDERRLOG_H

#include <stdbool.h>
#include <stddef.h>

#include "base/buf.h"

#define ORIGIN_LOG_LINE_MAX 2000
struct origin_log {
	const char *target;
	struct buf line;
	bool cut;                         /* the current line was already cut */
};
void origin_log_init(struct origin_log *l, const char *target);
void origin_log_feed(struct origin_log *l, const char *data, size_t n);
void origin_log_flush(struct origin_log *l);

#endif
