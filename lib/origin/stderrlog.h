/* stderrlog.h - a program's stderr, logged a line at a time as
 * "cgisnap: TARGET: LINE" (log_raw): the CGI back end's (cgi.c) and the
 * FastCGI one's FCGI_STDERR (fcgi.c). Once a command that owns a tree
 * opens the error log (origin_errlog_open), the lines go to that file
 * instead, counted, and to the log too only with -v: PHP's notices would
 * otherwise print a terminal line each.
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

/* The error log: process-wide (a process has one origin), thread-safe.
 * Opens NAME under dirfd for appending (never through a symbolic link);
 * one over ORIGIN_ERRLOG_MAX bytes is first renamed NAME.1, and so is
 * the log that grows past it while it is open (the last NAME.1 goes).
 * Each line is "TIME TARGET: LINE". 0, or -1 with err. */
#define ORIGIN_ERRLOG_MAX (1024 * 1024)
int origin_errlog_open(int dirfd, const char *name, char *err);
/* The lines written since the last call; the first ones of them (at
 * most max) are added to first. */
long origin_errlog_take(struct strlist *first, size_t max);
void origin_errlog_close(void);

#endif
