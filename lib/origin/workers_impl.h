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
	pid_t pid;               /* -1: not running (children: trace.pid) */
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
	unsigned long gen;       /* with children: the master it belongs to */
};

/* One fork asked of the spawner. */
struct spawn_req {
	int lfd, devnull;        /* become the child's fds 0 and 1 */
	int tracefd;             /* becomes its fd 3; -1: none */
	const int *slots;        /* become its fds 4, 5, ... (children's slots) */
	size_t nslots;
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
	/* With children (workerkids.c): the one php-cgi whose children serve
	 * the slots w[i], under kids_lock. gen counts the masters started;
	 * slot_read[i] is the read end of slot i's pipe to the latest one,
	 * until the slot's owner takes it. The master's own trace: its
	 * start-up, which every child's requests share. */
	bool children;
	char **master_envp;
	pthread_mutex_t kids_lock;
	pid_t master;            /* -1: none */
	int master_status;       /* how the last one ended */
	bool master_stopped;     /* ... killed by cgisnap, not ended by itself */
	unsigned long gen;
	int *slot_read;
	int master_fd;
	struct trace_read master_trace;
	struct origin_response master_boot;
	bool master_booted;
};

/* One request's share of a traced worker's stream (workertrace.c). */
struct trace_take {
	struct workers *ws;
	struct worker *w;
	struct origin_response *rs;
	const char *dir;
	bool eof;
	unsigned long conn_id; /* the request's connection (fcgi_side's), 0: none */
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
/* Drop the paths of l that the pool's keep refuses, in place. */
void worker_trace_keep(struct workers *ws, struct strlist *l);

/* Fork a process through the spawner (workers.c); its pid, or -1 with errno. */
pid_t worker_spawn(struct workers *ws, const struct spawn_req *r);
/* fd moved to min or above, close-on-exec; -1 on error (fd closed). */
int worker_fd_above(int fd, int min);

/* php-cgi's own children as the slots (workerkids.c). */
/* The master running and w a slot of it, started now where needed: 0,
 * or -1 with err. */
int kids_ensure(struct workers *ws, struct worker *w, long timeout_s, char *err);
/* Whether the master is running (reaped here when it ended). */
bool kids_running(struct workers *ws, struct worker *w);
/* Before a request on w: a child that ended while idle is read to its
 * end, so that the request is the next child's. */
void kids_prepare(struct workers *ws, struct worker *w);
/* End the child in w's slot (the master forks the next); its trace is
 * read up to the child's end and dropped. A child that ended already
 * (its D line read) is only forgotten. */
void kids_stop(struct workers *ws, struct worker *w);
/* After a failed request: 1 when the child died by itself (its reason in
 * err), 0 when it was alive and has been killed. */
int kids_bury(struct workers *ws, struct worker *w, char *err);
/* At the end of a child's start-up: the master's, read now where it was
 * not yet, merged into w->boot. false when it did not come whole. */
bool kids_add_master_boot(struct workers *ws, struct worker *w);
/* Stop the master and its children. */
void kids_close(struct workers *ws);

#endif
