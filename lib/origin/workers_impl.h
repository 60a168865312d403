/* workers_impl.h - what the pool of workers (workers.c) shares with its
 * tracing (workertrace.c): a worker, the pool, and the calls that cut a
 * traced worker's stream into its start-up and its requests. No other
 * file includes it.
 */
#ifndef CGISNAP_WORKERS_IMPL_H
#define CGISNAP_WORKERS_IMPL_H

#include <pthread.h>
#include <stdbool.h>
#include <sys/types.h>

#include "origin/origin.h"
#include "trace/traceread.h"

struct fcgi_pool;
struct runas;

struct worker {
	pid_t pid;               /* -1: not running */
	struct fcgi_pool *conn;  /* to its socket */
	char *sock;              /* the socket's path */
	char **envp;             /* for execve: the pool's, and FCGI_SOCKET=sock */
	long served;
	bool busy;
	/* Tracing: the pipe's read end (-1: none), the stream, the
	 * connections made to this process, its start-up's dependencies. */
	int trace_fd;
	struct trace_read trace;
	unsigned long conns;
	struct origin_response boot;
};

/* One fork asked of the spawner. */
struct spawn_req {
	int lfd, devnull;        /* become the child's fds 0 and 1 */
	int tracefd;             /* becomes its fd 3; -1: none */
	char **envp;             /* its environment */
	pid_t pid;               /* the child, or -1 with errno_ */
	int errno_;
	bool done;
};

struct workers {
	pthread_mutex_t lock;
	pthread_cond_t freed;
	/* The spawner: one request at a time, under slock. */
	pthread_mutex_t slock;
	pthread_cond_t scond;
	struct spawn_req *req;
	bool quit, spawner_running;
	pthread_t spawner;
	char *dir;
	char **argv;             /* NULL-terminated, for execve */
	bool binds;              /* the worker binds its socket itself */
	char *cwd;
	struct worker *w;
	size_t n;
	long max_requests;
	bool traced;
	const struct runas *runas;
	/* workers_set_trace_keep's: which start-up paths to keep (NULL: all). */
	bool (*keep)(void *arg, const char *path);
	void *keep_arg;
};

/* One request's share of a traced worker's stream (workertrace.c). */
struct trace_take {
	struct workers *ws;
	struct worker *w;
	struct origin_response *rs;
	const char *dir;
	bool eof;
};

/* A traced worker's pipe, into w->trace_fd (the read end, non-blocking)
 * and *wfd, and its environment: w's, with the tracer's variables (the
 * pipe named by descriptor and inode, as cgi.c does). -1 with err. */
int worker_trace_pipe(struct worker *w, int *wfd, char ***envp, char *err);
/* Free what worker_trace_pipe made of envp (nothing when it is w's own). */
void worker_trace_env_free(struct worker *w, char **envp);
/* fcgi_run_side's reader: give data to the start-up's lists until "B 1",
 * then to the request's until its own boundary, "B conns+1"; the rest
 * waits in w->trace. n == 0: the pipe ended. */
void worker_trace_feed(void *arg, const char *data, size_t n);
/* After the response: the rest of the request's trace, up to its
 * boundary, until deadline. 0, or -1 when it did not come. */
int worker_trace_finish(struct trace_take *t, long long deadline);
/* The request's dependencies as fork mode's would be: its own and the
 * worker's start-up's, sorted; rs marked untraced when they are not whole. */
void worker_trace_result(struct workers *ws, struct worker *w, bool whole, struct origin_response *rs);

#endif
