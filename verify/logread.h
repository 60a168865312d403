/* verify/logread.h - the requests of access logs, as 'cgisnap verify'
 * replays them.
 *
 * Formats: Apache's and nginx's common and combined (vhost_combined's
 * leading "host:port" too): a line is "... [TIME] \"METHOD TARGET
 * PROTOCOL\" STATUS ...", the request line the first double-quoted field
 * after the time. Files are read through zlib, so a gzip'ed rotation
 * (access.log.2.gz) reads as the plain file does; "-" is standard input.
 *
 * Only GET and HEAD requests count. A target in absolute form must name
 * the site (its origin or an alias); one in origin form is the site's.
 * Targets are normalised (url.h) with their query as sent: the query
 * policy is the tree's to apply, as its server applies it. Each distinct
 * target is kept once, with the number of requests for it. What is
 * skipped is counted: other methods, lines in no known format, URLs
 * outside the site.
 *
 *     struct logread lr;
 *     logread_init(&lr, &site);     // the site without its query policy
 *     if (logread_file(&lr, "access.log.1.gz", err) < 0) ...
 *     ... lr.reqs[0 .. lr.n)
 *     logread_release(&lr);
 */
#ifndef CGISNAP_VERIFY_LOGREAD_H
#define CGISNAP_VERIFY_LOGREAD_H

#include <stddef.h>

#include "base/hashmap.h"
#include "url/url.h"

/* The longest log line read; a longer one is malformed. */
#define LOGREAD_LINE_MAX (64 * 1024)

struct logreq {
	char *target;   /* "/path?query", normalised */
	long requests;  /* GET and HEAD requests for it */
};

struct logread {
	const struct site *site;     /* borrowed */
	struct hashmap index;        /* target -> index + 1 */
	struct logreq *reqs;
	size_t n, cap;
	long long lines;             /* every line read */
	long long requests;          /* GET and HEAD requests kept */
	long long other_methods;     /* POST, PUT, ...: never replayed */
	long long malformed;         /* no request line found, or a bad target */
	long long outside;           /* another host than the site's */
	char *first_malformed;       /* "FILE:LINE", for the summary */
};

void logread_init(struct logread *lr, const struct site *site);
/* Read one log (path, or "-" for standard input): -1 with err when it
 * cannot be opened or read ("cannot read log 'x': ..."). */
int logread_file(struct logread *lr, const char *path, char *err);
/* Keep only the n most requested targets (ties in target order); the
 * others are dropped. Returns how many requests the dropped ones had. */
long long logread_keep_most(struct logread *lr, size_t n);
void logread_release(struct logread *lr);

/* Parse one line: the method and the request target as logged, each a
 * fresh string. -1 when the line is not in a known format. For the unit
 * tests and logread_file. */
int logread_parse_line(const char *line, char **method, char **target);

#endif
