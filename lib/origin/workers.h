/* workers.h - a pool of persistent FastCGI worker processes that cgisnap
 * starts and owns: php-cgi's children (cfg.children: one php-cgi forks
 * the n workers, PHP_FCGI_CHILDREN=n, workerkids.c), php-cgi processes of
 * their own (PHP_FCGI_CHILDREN=0), or any program that serves FastCGI on a
 * socket it is given (--cgi-spawn).
 * Each worker has its own unix socket in a private runtime directory
 * (mkdtemp, mode 0700), its path in the worker's FCGI_SOCKET variable.
 * Either cgisnap listens on it and gives it to the worker as fd 0 - php-cgi
 * and libfcgi programs serve FastCGI when their stdin is a listening
 * socket - or the worker binds it itself (php-cgi -b PATH; cfg.binds) and
 * cgisnap waits until it accepts. Requests go through fcgi.c's client.
 *
 * The pool owns its processes' lives: a worker is started when a request
 * needs one, and one idle worker more with it (its start-up runs beside
 * that request; php-cgi's children all start with their master); one
 * that crashed mid-request is reaped (its signal or exit
 * status is the render's reason) and the request is tried once more on a
 * fresh worker; one past the timeout, or that failed a request in any
 * other way, is killed (SIGKILL) and replaced; one that served
 * max_requests requests is recycled. Traced (watch), every request's
 * file events are told apart by the tracer's boundaries (workers.c's
 * top), so that each render's dependencies are those a process of its
 * own would have reported. Workers get PR_SET_PDEATHSIG
 * (SIGKILL), so none outlives cgisnap, even killed with SIGKILL;
 * workers_close() stops them all and removes the runtime directory.
 *
 * Steps: workers_open(); workers_run() from any number of threads (a
 * request waits for a free worker: never more than n processes);
 * workers_close().
 */
#ifndef CGISNAP_WORKERS_H
#define CGISNAP_WORKERS_H

#include <stdbool.h>
#include <stddef.h>

#include "base/opts.h"
#include "base/spill.h"

struct origin_response;

/* Recycle a worker after this many requests (php-fpm's pm.max_requests,
 * php-cgi's PHP_FCGI_MAX_REQUESTS default). */
#define WORKERS_MAX_REQUESTS 500

/* How long a worker that binds its socket itself may take to listen on it
 * (the render's --timeout when that is shorter). */
#define WORKERS_LISTEN_S 10

struct workers_config {
	const char *prog;        /* absolute path of php-cgi, or /bin/sh for a command */
	const struct strlist *args; /* after prog, e.g. "-d" "opcache.enable=1" */
	const struct strlist *env;  /* the processes' environment, NAME=VALUE (and FCGI_SOCKET) */
	const char *cwd;         /* where the workers start */
	size_t n;                /* workers at most (0: 1) */
	long max_requests;       /* 0: WORKERS_MAX_REQUESTS */
	bool traced;             /* env preloads the tracer: trace each request */
	bool binds;              /* the program binds $FCGI_SOCKET itself: stdin is /dev/null */
	const struct runas *runas; /* who the workers run as (borrowed; the runtime
				    * directory is theirs); NULL: as we are */
	/* prog is php-cgi itself, and env has PHP_FCGI_CHILDREN=n and
	 * LD_PRELOAD the tracer (also untraced): one php-cgi forks the n
	 * workers, sharing its start-up and opcache (workerkids.c). */
	bool children;
};

struct workers;

/* Make the runtime directory; no process starts yet. NULL with err. The
 * configuration is copied. */
struct workers *workers_open(const struct workers_config *cfg, char *err);

/* Render one request with params env on a free worker: as fcgi_run (0
 * with the application's status in *app_status, or -1 with err), plus
 * "killed by signal 11 (SIGSEGV)" or "exited with status 255" when the
 * worker died under the request twice. When the pool is traced and rs is
 * not NULL, the request's dependencies go into rs->deps_* as cgi_run's
 * do (relative paths against dir, the script's directory), the worker's
 * start-up's included, and rs->untraced says when the trace is not
 * whole (a worker whose trace broke is replaced). Also, for a worker
 * that binds its socket, "exited with status 2 before listening on
 * 'PATH'" or "did not listen on 'PATH' within 10 s". Thread-safe. */
int workers_run(struct workers *ws, const char *target, const struct strlist *env,
		long timeout_s, size_t max_output, struct spill *out, unsigned long *app_status,
		struct origin_response *rs, const char *dir, char *err);

/* Which traced paths the caller can use: a worker's start-up's paths
 * that keep refuses are dropped from its lists once, when the start-up
 * ends, rather than from each request's lists they are merged into.
 * keep runs on the render threads; set it before the first render. */
void workers_set_trace_keep(struct workers *ws, bool (*keep)(void *arg, const char *path), void *arg);

/* How many workers the pool runs at most (cfg.n, at least 1). */
size_t workers_size(const struct workers *ws);

/* The runtime directory (for tests and messages). */
const char *workers_dir(const struct workers *ws);

/* Stop every worker and remove the runtime directory. NULL is fine. */
void workers_close(struct workers *ws);

/* Pure parts, for the unit tests. */

/* php-cgi's arguments for a worker: "-d" pairs turning opcache on and,
 * when fresh, seeing edited files at once (else as php.ini says), then
 * session.save_path=session_dir when that is not NULL (with opcache's
 * lock file there, and the sessions' collection on: SESSION_GC_ARG).
 * Appended to args. */
void workers_php_args(struct strlist *args, const char *session_dir, bool fresh);

/* Why a worker that was reaped with status ended: "killed by signal 11
 * (SIGSEGV)" or "exited with status 3", into err; returns -1. */
int workers_exit_reason(int status, char *err);

/* Whether a worker that has served served requests is to be recycled. */
bool workers_worn_out(long served, long max_requests);

#endif
