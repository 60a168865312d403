/* protocol.h - the dependency tracer's protocol: what the preloaded
 * library (preload.c) writes on its pipe and what the reader
 * (traceread.c) takes, defined once for both sides. No code: the tracer
 * is built apart, without the rest of lib/.
 *
 * CGISNAP_TRACE_FD (TRACE_FD_ENV) names a pipe, "3:INODE" (fd 3, set up by
 * lib/origin/cgi.c; INODE the pipe's, so that a descriptor 3 the program put
 * there itself is never written to; a bare "3" checks only that it is a
 * pipe); for each call the library writes one line (once a render: a
 * line repeating one this process sent since its start or its last
 * boundary is dropped), many lines with one write(2) of at most PIPE_BUF
 * bytes, held back until the buffer is full, the process execs or exits,
 * or a worker enters accept:
 *
 *   H pid          the tracer runs in this process (sent at start: a
 *                  render without any H line was not traced at all, as a
 *                  statically linked program is not)
 *   R /abs/path    opened for reading or stat'ed (also when the path does
 *                  not exist: a page that looked for it depends on that)
 *   E /abs/path    access'ed: only whether it exists (PHP's file_exists()
 *                  is access(F_OK)), so only its creation or removal
 *                  matters, not a change of its content
 *   L /abs/dir     directory listed (opendir, scandir, glob)
 *   W /abs/path    opened for writing, created, renamed, removed
 *   X reason       the trace is incomplete from here on: the program
 *                  closed or replaced the trace descriptor, or used a
 *                  path no line can carry ("closed or replaced the trace
 *                  descriptor"); watch then treats the page as untraced
 *   B n            a persistent FastCGI worker (lib/origin/workers.c) is about
 *                  to wait for its n-th connection: everything before
 *                  belongs to the connection before (n = 1: to the
 *                  worker's start-up), everything after to the next.
 *                  Only with CGISNAP_TRACE_ACCEPT=FD (TRACE_ACCEPT_ENV), the listening
 *                  socket (php-cgi's fd 0): the line comes as the
 *                  program enters accept on FD, once per connection it
 *                  got (an accept that failed, EINTR, is retried without
 *                  a new line). A worker serves one connection at a time
 *                  and enters accept only when it is done with the last
 *                  one, its shutdown work included, so nothing of a
 *                  request can come after its boundary.
 *   A id           a persistent FastCGI worker accepted a connection whose
 *                  own end cgisnap named "\0" TRACE_CONN_NAME "id" (an
 *                  abstract Unix socket name): the lines up to the next
 *                  B line are that connection's request. A connection
 *                  cgisnap gave up on that a later process accepts all
 *                  the same is told apart by its id, not counted as the
 *                  next request's
 *   D status       (php-cgi's own children only, below) the child that
 *                  held this slot ended: its wait(2) status, in decimal
 *
 * CGISNAP_TRACE_SLOTS=N:FIRST (TRACE_SLOTS_ENV): the program is a php-cgi
 * that forks N children of its own (PHP_FCGI_CHILDREN=N), and cgisnap
 * gave it N slots: slot i is a listening socket on fd FIRST+2i and a pipe
 * on fd FIRST+2i+1. Each child the program forks takes a free slot: the
 * socket becomes its fd 0 (where it accepts), the pipe its trace
 * (CGISNAP_TRACE_FD then names a bare "3", the pipe there changing with
 * each child), and its first line there is "H pid", also untraced (no
 * CGISNAP_TRACE_FD: the slot's pipe carries only H and D lines). When
 * the program reaps a child, "D status" goes on that child's slot's pipe,
 * and its next child takes the slot. The program's own trace (its
 * start-up: php.ini, extensions) ends with "B 1" as it forks its first
 * child; each child's requests are cut at their "B n" as a worker's are.
 * The variable is taken out of the environment at start: only the
 * program cgisnap started forks into slots.
 *
 * CGISNAP_TRACE_PHP_REALPATHS=1 (TRACE_PHP_REALPATHS_ENV), with
 * CGISNAP_TRACE_ACCEPT: the program is a php-cgi that exports
 * realpath_cache_clean (lib/origin/open.c looks) and runs with PHP's
 * realpath cache on. The library empties that cache at each boundary, as
 * clearstatcache(true) would, so that each request resolves its paths as a
 * fresh process would (and the lines say so), while a request that
 * includes many files of one directory looks the directory up once.
 * Told so in a program without that function, it sends "X kept PHP's
 * realpath cache: ..." after each boundary: each request is untraced.
 * The CGISNAP_TRACE_* variables are cgisnap's alone: --env refuses them.
 *
 * Lines stay below PIPE_BUF and each write holds whole lines, so lines
 * of several threads or processes never mix. A path of PATH_MAX bytes or
 * more (which the kernel refuses) is not written at all. Relative paths are made absolute against the working
 * directory, or against a directory descriptor through /proc/self/fd.
 *
 */
#ifndef CGISNAP_TRACE_PROTOCOL_H
#define CGISNAP_TRACE_PROTOCOL_H

/* The first byte of each line, a space after it. */
enum trace_line_kind {
	TRACE_HELLO = 'H',
	TRACE_READ = 'R',
	TRACE_EXIST = 'E',
	TRACE_LISTED = 'L',
	TRACE_WRITTEN = 'W',
	TRACE_LOST = 'X',
	TRACE_BOUNDARY = 'B',
	TRACE_DIED = 'D',
	TRACE_ACCEPTED = 'A',
};

/* The descriptor cgisnap gives the program its pipe on. */
#define TRACE_FD 3

#define TRACE_FD_ENV "CGISNAP_TRACE_FD"
#define TRACE_ACCEPT_ENV "CGISNAP_TRACE_ACCEPT"
#define TRACE_PHP_REALPATHS_ENV "CGISNAP_TRACE_PHP_REALPATHS"
#define TRACE_SLOTS_ENV "CGISNAP_TRACE_SLOTS"
/* What the abstract name of cgisnap's end of a worker's connection begins
 * with, after its NUL: the id follows, in decimal (an A line). */
#define TRACE_CONN_NAME "cgisnap-conn-"
/* At most this many slots (PHP_FCGI_CHILDREN of one program): two
 * descriptors each, well inside the usual limit of 1024. */
#define TRACE_SLOTS_MAX 250

#endif
