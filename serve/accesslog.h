/* serve/accesslog.h - the access log: combined log format, buffered.
 *
 * Lines are formatted by the worker that answered the request and appended
 * to one memory buffer under a short mutex (a memcpy); the buffer is
 * written out by accesslog_flush(), which the server's main loop calls
 * every second, and at exit. A worker that finds the buffer over
 * ACCESSLOG_FLUSH_AT writes it out itself, so a burst cannot grow memory
 * without bound. This is Apache's BufferedLogs: a crash loses at most the
 * last second of lines, in exchange for no write(2) per request.
 *
 * The format is Apache's "combined":
 *   127.0.0.1 - - [10/Oct/2000:13:55:36 -0700] "GET /a HTTP/1.1" 200 2326 "REFERER" "AGENT"
 * with '"', '\' and bytes outside printable ASCII in the request line,
 * referer and user agent escaped as \" \\ \xHH (as Apache does), so a
 * client cannot forge log lines.
 */
#ifndef CGISNAP_SERVE_ACCESSLOG_H
#define CGISNAP_SERVE_ACCESSLOG_H

#include <stddef.h>
#include <time.h>

#define ACCESSLOG_FLUSH_AT (256 * 1024)
/* Longest line accesslog_format writes; longer fields are cut. */
#define ACCESSLOG_LINE_MAX 4096
/* "[10/Oct/2000:13:55:36 -0700]" and its NUL. */
#define ACCESSLOG_TIME_LEN 64

struct access_record {
	const char *client;     /* "127.0.0.1" */
	const char *time;       /* from accesslog_time() */
	const char *method;
	const char *target;     /* as the client sent it */
	const char *version;    /* "HTTP/1.1" */
	int status;
	long long bytes;        /* body bytes sent; 0 or less prints "-" */
	const char *referer;    /* NULL prints "-" */
	const char *user_agent; /* NULL prints "-" */
};

/* Format r as one line ending in '\n' into out (ACCESSLOG_LINE_MAX bytes);
 * returns its length. */
size_t accesslog_format(char *out, const struct access_record *r);

/* "[10/Oct/2000:13:55:36 -0700]" for t in local time into out. */
void accesslog_time(time_t t, char out[ACCESSLOG_TIME_LEN]);

struct accesslog;

/* Open (append, create 0644) path, or standard output for "-". NULL with
 * err when the file cannot be opened. */
struct accesslog *accesslog_open(const char *path, char *err);

/* Append one formatted line; thread-safe. Write errors are counted and
 * reported by the next accesslog_flush(). */
void accesslog_add(struct accesslog *l, const char *line, size_t len);

/* Write out what is buffered. -1 with err when a write failed since the
 * last call (the lines are dropped: a full disk must not stop serving). */
int accesslog_flush(struct accesslog *l, char *err);

/* Flush, then open the file again by name (after logrotate moved it). */
int accesslog_reopen(struct accesslog *l, char *err);

/* Flush and close; l may be NULL. */
void accesslog_close(struct accesslog *l);

#endif
