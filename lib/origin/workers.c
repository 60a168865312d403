/* workers.c - the pool of persistent FastCGI workers (workers.h).
 *
 * Workers are started with vmfork, not posix_spawn: PR_SET_PDEATHSIG
 * must be set in the child before exec. The child borrows cgisnap's
 * memory until it execs (base/vmfork.h), so it makes system calls only,
 * on arguments prepared before it starts. The death signal comes when
 * the thread that forked ends, not only the process, and render threads
 * come and go (a crawl's end, watch's batches): every worker is forked
 * by one thread of the pool's own, the spawner, which lives until
 * workers_close. A worker found dead when taken all the same is simply
 * started again.
 *
 * Tracing (cfg->traced) is workertrace.c's: each worker's trace pipe,
 * its start-up's dependencies, each request's share of the stream.
 */
#include "origin/workers.h"
#include "origin/workers_impl.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "base/clock.h"
#include "base/log.h"
#include "base/vmfork.h"
#include "origin/origin_impl.h"
#include "trace/protocol.h"
#include "trace/traceread.h"
#include "base/xalloc.h"

/* How long a worker whose request broke is given to finish dying, so
 * that its status can say why; one still running after that is killed. */
#define DYING_MS 500

static char **vector(const char *first, const struct strlist *l)
{
	size_t n = l ? l->n : 0, k = 0;
	char **v = xcalloc(n + 2, sizeof *v);
	if (first)
		v[k++] = xstrdup(first);
	for (size_t i = 0; i < n; i++)
		v[k++] = xstrdup(l->items[i]);
	return v;
}

static void vector_free(char **v)
{
	for (size_t i = 0; v && v[i]; i++)
		free(v[i]);
	free(v);
}

static void *spawner(void *arg);

struct workers *workers_open(const struct workers_config *cfg, char *err)
{
	struct workers *ws = xcalloc(1, sizeof *ws);
	const char *tmp = getenv("TMPDIR");
	pthread_mutex_init(&ws->lock, NULL);
	pthread_cond_init(&ws->freed, NULL);
	pthread_mutex_init(&ws->slock, NULL);
	pthread_cond_init(&ws->scond, NULL);
	ws->n = cfg->n ? cfg->n : 1;
	ws->traced = cfg->traced;
	ws->max_requests = cfg->max_requests > 0 ? cfg->max_requests : WORKERS_MAX_REQUESTS;
	ws->argv = vector(cfg->prog, cfg->args);
	ws->binds = cfg->binds;
	ws->cwd = xstrdup(cfg->cwd ? cfg->cwd : "/");
	ws->runas = cfg->runas;
	ws->children = cfg->children && !cfg->binds;
	ws->master = -1;
	ws->master_fd = -1;
	ws->master_trace = (struct trace_read)TRACE_READ_INIT;
	origin_response_init(&ws->master_boot);
	pthread_mutex_init(&ws->kids_lock, NULL);
	ws->w = xcalloc(ws->n, sizeof *ws->w);
	for (size_t i = 0; i < ws->n; i++) {
		ws->w[i].pid = -1;
		ws->w[i].trace_fd = -1;
		ws->w[i].trace = (struct trace_read)TRACE_READ_INIT;
		origin_response_init(&ws->w[i].boot);
	}

	char *dir = xasprintf("%s/cgisnap-workers-XXXXXX", tmp && *tmp ? tmp : "/tmp");
	if (!mkdtemp(dir)) { /* mode 0700 */
		err_sys(err, "cannot create a runtime directory '%s'", dir);
		free(dir);
		goto fail;
	}
	ws->dir = dir;
	if (runas_give(ws->runas, dir, err) < 0) /* a worker that binds makes its socket there */
		goto fail;
	for (size_t i = 0; i < ws->n; i++) {
		ws->w[i].sock = xasprintf("%s/w%zu.sock", dir, i);
		if (strlen(ws->w[i].sock) >= sizeof ((struct sockaddr_un *)0)->sun_path) {
			err_set(err, "runtime directory '%s' is too deep for a socket path (set TMPDIR)", dir);
			goto fail;
		}
		struct strlist env = STRLIST_INIT;
		for (size_t k = 0; cfg->env && k < cfg->env->n; k++)
			strlist_add(&env, cfg->env->items[k]);
		strlist_add_owned(&env, xasprintf("FCGI_SOCKET=%s", ws->w[i].sock));
		ws->w[i].envp = vector(NULL, &env);
		strlist_clear(&env);
	}
	if (ws->children) {
		/* The slots follow the trace's fd: protocol.h. */
		struct strlist env = STRLIST_INIT;
		for (size_t k = 0; cfg->env && k < cfg->env->n; k++)
			strlist_add(&env, cfg->env->items[k]);
		strlist_add_owned(&env, xasprintf(TRACE_SLOTS_ENV "=%zu:%d", ws->n, TRACE_FD + 1));
		if (ws->traced) {
			strlist_add_owned(&env, xasprintf(TRACE_FD_ENV "=%d", TRACE_FD));
			strlist_add(&env, TRACE_ACCEPT_ENV "=0");
		}
		ws->master_envp = vector(NULL, &env);
		strlist_clear(&env);
		ws->slot_read = xcalloc(ws->n, sizeof *ws->slot_read);
		for (size_t i = 0; i < ws->n; i++)
			ws->slot_read[i] = -1;
	}
	if ((errno = pthread_create(&ws->spawner, NULL, spawner, ws)) != 0) {
		err_sys(err, "cannot start a thread");
		goto fail;
	}
	ws->spawner_running = true;
	return ws;
fail:
	workers_close(ws);
	return NULL;
}

void workers_set_trace_keep(struct workers *ws, bool (*keep)(void *arg, const char *path), void *arg)
{
	ws->keep = keep;
	ws->keep_arg = arg;
}

size_t workers_size(const struct workers *ws)
{
	return ws->n;
}

const char *workers_dir(const struct workers *ws)
{
	return ws->dir;
}

int worker_fd_above(int fd, int min)
{
	if (fd < 0 || fd >= min)
		return fd;
	int moved = fcntl(fd, F_DUPFD_CLOEXEC, min);
	close(fd);
	return moved;
}

/* fd moved above 2, so that the child's dup2 onto 0 and 1 never
 * overwrites another source. */
static int above_stdio(int fd)
{
	return worker_fd_above(fd, 3);
}

/* Reap w's process (killing its group first when kill_it) and forget
 * its connection and socket. The status is in *status when it was
 * reaped here. */
static void stop(struct worker *w, bool kill_it, int *status)
{
	int st = 0;
	if (w->pid > 0) {
		if (kill_it && kill(-w->pid, SIGKILL) < 0)
			kill(w->pid, SIGKILL);
		while (waitpid(w->pid, &st, 0) < 0 && errno == EINTR)
			;
	}
	if (status)
		*status = st;
	w->pid = -1;
	fcgi_close(w->conn);
	w->conn = NULL;
	unlink(w->sock);
	w->served = 0;
	if (w->trace_fd >= 0)
		close(w->trace_fd);
	w->trace_fd = -1;
	trace_read_release(&w->trace);
	w->trace = (struct trace_read)TRACE_READ_INIT;
	w->conns = 0;
	origin_response_release(&w->boot);
}

/* What exec_worker needs, prepared before it starts. */
struct worker_child {
	struct workers *ws;
	pid_t parent;
	const struct spawn_req *r;
};

/* The child's side of vmfork: system calls only (see the top). */
static int exec_worker(void *arg)
{
	const struct worker_child *c = arg;
	struct workers *ws = c->ws;
	const struct spawn_req *r = c->r;
	int lfd = r->lfd, devnull = r->devnull, tracefd = r->tracefd;
	/* System calls only from here on (see the top). */
	setpgid(0, 0);
	dup2(lfd, 0);
	dup2(devnull, 1);
	/* tracefd is above TRACE_FD: lfd and devnull, maybe at 3, are
	 * copied already. */
	if (tracefd >= 0)
		dup2(tracefd, TRACE_FD);
	/* The slots' fds are all above where they go (workerkids.c). */
	for (size_t k = 0; k < r->nslots; k++)
		dup2(r->slots[k], TRACE_FD + 1 + (int)k);
	if (tracefd < 0)
		close(TRACE_FD);
	close_range(TRACE_FD + 1 + (unsigned)r->nslots, ~0U, 0);
	origin_child_signals();
	/* The site's user before its directory, as Apache's children. */
	if (runas_enter(ws->runas) < 0)
		runas_enter_failed(ws->runas, ws->argv[0]);
	/* After the switch of user, which clears a death signal set before. */
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	if (getppid() != c->parent)
		return 127; /* cgisnap died before the line above */
	if (chdir(ws->cwd) < 0)
		return 127;
	execve(ws->argv[0], ws->argv, r->envp);
	return 127;
}

static void *spawner(void *arg)
{
	struct workers *ws = arg;
	pid_t parent = getpid();
	pthread_mutex_lock(&ws->slock);
	for (;;) {
		while (!ws->quit && (!ws->req || ws->req->done))
			pthread_cond_wait(&ws->scond, &ws->slock);
		if (ws->quit)
			break;
		struct spawn_req *r = ws->req;
		struct worker_child c = { ws, parent, r };
		r->pid = vmfork_switching_user(exec_worker, &c);
		r->errno_ = errno;
		r->done = true;
		pthread_cond_broadcast(&ws->scond);
	}
	pthread_mutex_unlock(&ws->slock);
	return NULL;
}

pid_t worker_spawn(struct workers *ws, const struct spawn_req *req)
{
	struct spawn_req r = *req;
	r.pid = -1;
	r.done = false;
	pthread_mutex_lock(&ws->slock);
	while (ws->req)
		pthread_cond_wait(&ws->scond, &ws->slock);
	ws->req = &r;
	pthread_cond_broadcast(&ws->scond);
	while (!r.done)
		pthread_cond_wait(&ws->scond, &ws->slock);
	ws->req = NULL;
	pthread_cond_broadcast(&ws->scond);
	pthread_mutex_unlock(&ws->slock);
	errno = r.errno_;
	return r.pid;
}

/* A worker that binds its socket itself: wait until it accepts a
 * connection, at most timeout_s seconds. 0, or -1 with err (the worker,
 * dead or alive, is stopped then). */
static int await_listening(struct worker *w, long timeout_s, char *err)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	long long deadline = now_ms() + timeout_s * 1000;
	long pause_ms = 2;
	strcpy(sa.sun_path, w->sock);
	for (;;) {
		int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
		if (fd < 0)
			return err_sys(err, "cannot make a socket");
		int rc = connect(fd, (struct sockaddr *)&sa, sizeof sa);
		close(fd);
		if (rc == 0)
			return 0;
		int st;
		if (waitpid(w->pid, &st, WNOHANG) == w->pid) {
			char why[ERR_LEN];
			workers_exit_reason(st, why);
			w->pid = -1;
			stop(w, false, NULL);
			return err_set(err, "%s before listening on '%s'", why, sa.sun_path);
		}
		if (now_ms() >= deadline) {
			stop(w, true, NULL);
			return err_set(err, "did not listen on '%s' within %ld s", sa.sun_path, timeout_s);
		}
		struct timespec ts = { 0, pause_ms * 1000000 };
		nanosleep(&ts, NULL);
		if (pause_ms < 50)
			pause_ms *= 2;
	}
}

/* Start w: a listening socket, then the program on it as fd 0; or, when
 * the program binds the socket itself, the program on /dev/null, then
 * wait for its socket (at most timeout_s, see WORKERS_LISTEN_S). */
static int start(struct workers *ws, struct worker *w, long timeout_s, char *err)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	int lfd = -1, devnull = -1, tracefd = -1;
	char **envp = w->envp;

	unlink(w->sock);
	strcpy(sa.sun_path, w->sock);
	if ((devnull = above_stdio(open("/dev/null", O_RDWR | O_CLOEXEC))) < 0) {
		err_sys(err, "cannot open '/dev/null'");
		goto fail;
	}
	if (!ws->binds) {
		lfd = above_stdio(socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0));
		if (lfd < 0 || bind(lfd, (struct sockaddr *)&sa, sizeof sa) < 0 || listen(lfd, 16) < 0) {
			err_sys(err, "cannot listen on '%s'", w->sock);
			goto fail;
		}
	}
	if (ws->traced && worker_trace_pipe(w, &tracefd, &envp, err) < 0)
		goto fail;
	struct spawn_req r = { .lfd = ws->binds ? devnull : lfd, .devnull = devnull, .tracefd = tracefd, .envp = envp };
	pid_t pid = worker_spawn(ws, &r);
	if (pid < 0) {
		err_sys(err, "cannot start '%s'", ws->argv[0]);
		goto fail;
	}
	/* Here too, so that a kill of the group cannot come before the child's. */
	setpgid(pid, pid);
	if (lfd >= 0)
		close(lfd);
	close(devnull);
	if (tracefd >= 0)
		close(tracefd); /* the worker's alone: its end is the pipe's end */
	worker_trace_env_free(w, envp);
	w->pid = pid;
	w->served = 0;
	/* The socket listens already (cgisnap's), or once the program says so
	 * by accepting: connecting cannot race the start. */
	if (ws->binds &&
	    await_listening(w, timeout_s < WORKERS_LISTEN_S ? timeout_s : WORKERS_LISTEN_S, err) < 0)
		return -1;
	/* A traced worker counts its connections: no test connection. */
	char *addr = xasprintf("unix:%s", w->sock);
	w->conn = ws->traced ? fcgi_open_one_shot(addr, err) : fcgi_open(addr, err);
	free(addr);
	if (!w->conn) {
		stop(w, true, NULL);
		return -1;
	}
	return 0;
fail:
	if (lfd >= 0)
		close(lfd);
	if (devnull >= 0)
		close(devnull);
	if (tracefd >= 0)
		close(tracefd);
	if (w->trace_fd >= 0)
		close(w->trace_fd);
	w->trace_fd = -1;
	worker_trace_env_free(w, envp);
	unlink(w->sock);
	return -1;
}

/* A free worker, marked busy; waits while all n are busy. */
static struct worker *take(struct workers *ws)
{
	pthread_mutex_lock(&ws->lock);
	for (;;) {
		for (size_t i = 0; i < ws->n; i++) {
			/* A running one first: it has warmed its opcache. */
			if (!ws->w[i].busy && ws->w[i].pid > 0) {
				ws->w[i].busy = true;
				pthread_mutex_unlock(&ws->lock);
				return &ws->w[i];
			}
		}
		for (size_t i = 0; i < ws->n; i++) {
			if (!ws->w[i].busy) {
				ws->w[i].busy = true;
				pthread_mutex_unlock(&ws->lock);
				return &ws->w[i];
			}
		}
		pthread_cond_wait(&ws->freed, &ws->lock);
	}
}

static void put_back(struct workers *ws, struct worker *w)
{
	pthread_mutex_lock(&ws->lock);
	w->busy = false;
	pthread_cond_signal(&ws->freed);
	pthread_mutex_unlock(&ws->lock);
}

/* Whether w's process is still there; one that ended while idle is
 * reaped here. */
static bool running(struct worker *w)
{
	int st;
	if (w->pid <= 0)
		return false;
	pid_t r = waitpid(w->pid, &st, WNOHANG);
	if (r == 0)
		return true;
	w->pid = -1;
	stop(w, false, NULL);
	return false;
}

/* After a failed request: 1 when the worker died by itself (its reason
 * in err), 0 when it was alive and has been killed. Either way it is
 * gone. */
static int bury(struct worker *w, char *err)
{
	long long deadline = now_ms() + DYING_MS;
	int st;
	for (;;) {
		pid_t r = waitpid(w->pid, &st, WNOHANG);
		if (r == w->pid || (r < 0 && errno != EINTR)) {
			if (r == w->pid)
				workers_exit_reason(st, err);
			w->pid = -1;
			stop(w, false, NULL);
			return 1;
		}
		if (now_ms() >= deadline)
			break;
		struct timespec ts = { 0, 5000000 };
		nanosleep(&ts, NULL);
	}
	stop(w, true, NULL);
	return 0;
}

/* A cold start is demand growing: one idle worker more is started too,
 * so that its start-up (php-cgi's, a tenth of a second) runs beside this
 * request rather than in the way of the next one; a crawl's first pages
 * come one at a time, and the other cores would wait. Not for workers
 * that bind their socket themselves: start waits until they listen. A
 * start that fails is left to the request that takes the worker next,
 * which tries again and says why. */
static void start_one_ahead(struct workers *ws, long timeout_s)
{
	struct worker *next = NULL;
	if (ws->binds)
		return;
	pthread_mutex_lock(&ws->lock);
	for (size_t i = 0; i < ws->n && !next; i++)
		if (!ws->w[i].busy && ws->w[i].pid <= 0) {
			next = &ws->w[i];
			next->busy = true;
		}
	pthread_mutex_unlock(&ws->lock);
	if (!next)
		return;
	char err[ERR_LEN];
	if (start(ws, next, timeout_s, err) < 0)
		log_debug("%s", err);
	put_back(ws, next);
}

int workers_run(struct workers *ws, const char *target, const struct strlist *env,
		long timeout_s, size_t max_output, struct spill *out, unsigned long *app_status,
		struct origin_response *rs, const char *dir, char *err)
{
	struct worker *w = take(ws);
	int rc = -1;

	*app_status = 0;
	for (int attempt = 0; attempt < 2; attempt++) {
		bool cold = ws->children ? !kids_running(ws, w) : !running(w);
		if (cold && (ws->children ? kids_ensure(ws, w, timeout_s, err) : start(ws, w, timeout_s, err)) < 0)
			break;
		if (cold && attempt == 0 && !ws->children)
			start_one_ahead(ws, timeout_s);
		if (ws->children)
			kids_prepare(ws, w);
		/* Each traced request's connection has an id of its own, which
		 * the tracer reports as its lines' (protocol.h's A line). */
		static _Atomic unsigned long conn_seq;
		unsigned long id = ws->traced ? ((unsigned long)getpid() << 32) | (++conn_seq & 0xffffffffUL) : 0;
		struct trace_take t = { ws, w, rs, dir ? dir : "/", false, id };
		struct fcgi_side side = { w->trace_fd, worker_trace_feed, &t, id };
		long long deadline = now_ms() + timeout_s * 1000LL;
		bool traced = ws->traced && rs && w->trace_fd >= 0;
		if (traced)
			w->conns++;
		rc = fcgi_run_side(w->conn, target, env, timeout_s, max_output, out, app_status,
				   traced ? &side : NULL, err);
		if (rc == 0) {
			bool worn = workers_worn_out(++w->served, ws->max_requests);
			if (traced) {
				/* a worker whose trace broke serves no more: the
				 * next request gets a whole one */
				bool whole = worker_trace_finish(&t, deadline) == 0;
				worker_trace_result(ws, w, whole, rs);
				worn = worn || !whole || w->trace.lost || !w->trace.hello;
			}
			if (ws->children && (worn || w->trace.died >= 0))
				kids_stop(ws, w);
			else if (worn)
				stop(w, true, NULL);
			break;
		}
		/* A crash is tried once more on a fresh worker; a worker that
		 * failed otherwise (timeout, too much output) is killed, and
		 * the failure stands. */
		if (!(ws->children ? kids_bury(ws, w, err) : bury(w, err)))
			break;
		spill_reset(out);
		*app_status = 0;
	}
	put_back(ws, w);
	return rc;
}

void workers_close(struct workers *ws)
{
	if (!ws)
		return;
	if (ws->children)
		kids_close(ws); /* the slots' children with it: none to stop below */
	for (size_t i = 0; i < ws->n; i++) {
		if (ws->children)
			ws->w[i].pid = -1;
		if (ws->w[i].sock)
			stop(&ws->w[i], true, NULL);
		free(ws->w[i].sock);
		vector_free(ws->w[i].envp);
	}
	if (ws->spawner_running) {
		pthread_mutex_lock(&ws->slock);
		ws->quit = true;
		pthread_cond_broadcast(&ws->scond);
		pthread_mutex_unlock(&ws->slock);
		pthread_join(ws->spawner, NULL);
	}
	if (ws->dir)
		rmdir(ws->dir);
	free(ws->dir);
	free(ws->w);
	free(ws->cwd);
	vector_free(ws->argv);
	vector_free(ws->master_envp);
	free(ws->slot_read);
	pthread_mutex_destroy(&ws->kids_lock);
	pthread_cond_destroy(&ws->freed);
	pthread_mutex_destroy(&ws->lock);
	pthread_cond_destroy(&ws->scond);
	pthread_mutex_destroy(&ws->slock);
	free(ws);
}
