/* traceread.h - reading what the dependency tracer (preload.c; the
 * protocol is protocol.h's) writes on its pipe into the caller's lists
 * (an origin_response's deps_*): shared by cgi.c (a process per render: the whole stream
 * is one render's) and workers.c (a persistent worker: the stream is cut
 * at the tracer's "B n" boundaries, one piece per request, the first
 * piece the worker's start-up). Not for use outside those files.
 */
#ifndef CGISNAP_TRACEREAD_H
#define CGISNAP_TRACEREAD_H

#include <stdbool.h>
#include <stddef.h>

#include "base/buf.h"

struct trace_read {
	struct buf pending;      /* lines not taken yet: unfinished, or past stop_at */
	bool hello;              /* an H line came: the tracer ran */
	char *lost;              /* the first X line's reason, or NULL */
	unsigned long boundary;  /* the last B line's number (0: none yet) */
	unsigned long stop_at;   /* 0: take every line; else stop after "B stop_at" */
	/* A slot of php-cgi's children (protocol.h): its child's pid, from
	 * the first H line (0: none yet; later ones are the programs it
	 * started), and a D line's status, where the reading stops (-1:
	 * none). Elsewhere D lines mean nothing. */
	bool slot;
	long pid;
	int died;
	/* Not 0: take only the lines of the connection with this id, from
	 * its A line up to the next B line, and stop there (conn_done);
	 * stop_at is not looked at. */
	unsigned long want_conn;
	bool in_conn, conn_done;
};

#define TRACE_READ_INIT { BUF_INIT, false, NULL, 0, 0, false, 0, -1, 0, false, false }

/* Where the paths go, one list per kind of line (R, E, L, W). */
struct trace_lists {
	struct strlist *read, *exist, *listed, *written;
};

/* Take n bytes of the stream (n may be 0: lines left pending by an
 * earlier stop are looked at again). R, E, L and W paths go into rs's
 * lists, made absolute against dir and cleaned of "." and "..". Lines
 * after the boundary numbered stop_at, or after a D line, are kept for later. A line too
 * long to be a path is dropped whole. */
void trace_read_feed(struct trace_read *tr, const char *dir, const char *data, size_t n,
		     const struct trace_lists *to);

/* Keep n bytes of the stream for a later feed, unread. */
void trace_read_add(struct trace_read *tr, const char *data, size_t n);
/* Whether what waits for a feed holds a whole line of kind. */
bool trace_read_holds(const struct trace_read *tr, char kind);
/* Take the lines of connection id next (0: count boundaries again). */
void trace_read_want(struct trace_read *tr, unsigned long id);
/* Whether the boundary stop_at came (always false when stop_at is 0), or
 * the end of the connection wanted. */
bool trace_read_done(const struct trace_read *tr);

/* Sort the lists and drop repeats. */
void trace_read_finish(const struct trace_lists *lists);

/* After the run: NULL when the trace is whole; else why not, as "'PROG'
 * WHY" reads (prog: what ran, the script itself or its handler), e.g. "is
 * statically linked". The string lives as long as tr. */
const char *trace_read_gap(const struct trace_read *tr, const char *prog);

void trace_read_release(struct trace_read *tr);

#endif
