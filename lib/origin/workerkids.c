/* workerkids.c - php-cgi's own children as the pool's workers
 * (workers.h's cfg.children; the tracer's side is
 * lib/trace/preload_children.c, the protocol trace/protocol.h's).
 *
 * A php-cgi takes a tenth of a second of CPU to start with Debian's
 * extensions, and each process compiles every script again into an
 * opcache of its own: php-fpm forks its children from one loaded master
 * that shares one opcache. php-cgi does the same with PHP_FCGI_CHILDREN=n,
 * but its children all accept on one socket, and cgisnap must tell them
 * apart: each request's trace, a timeout's kill, a crash's reason. So the
 * master gets n slots, each a listening socket and a pipe; the tracer,
 * preloaded also when nothing is traced, gives each child the master
 * forks a free slot: the socket becomes its fd 0, the pipe its trace, and
 * its first line there is "H pid". The master tells of each child it
 * reaps with "D status" on that child's slot, and forks the next one into
 * the slot.
 *
 * A slot w[i] is then a worker as workers.c knows it: its socket path,
 * its pipe (w->trace_fd, read as a worker's trace is), the child's pid
 * (from its H line), its start-up: the master's, which ends with "B 1" on
 * the master's own pipe as it forks its first child, merged with what the
 * child read before its first accept. Ending a child (a timeout, worn
 * out) is killing it and reading its slot up to the D line: what follows
 * is the next child's.
 *
 * Each master gets sockets and pipes of its own, and cgisnap keeps no end
 * of them but the pipes' read ends: a master that died takes them with it
 * (connections are refused, the pipes end), as a worker that is a process
 * of its own does. A slot is touched by its owner alone, the thread that
 * took it; the master's state is kids_lock's.
 */
#include "origin/workers_impl.h"
#include "origin/workers.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "base/clock.h"
#include "base/log.h"
#include "base/xalloc.h"
#include "origin/origin_impl.h"
#include "trace/protocol.h"

/* How long a killed child's end may take to be told (ms): the master
 * reaps it at once. */
#define KIDS_END_MS 2000
/* How long a worker is given to finish dying by itself after a request
 * broke (workers.c's DYING_MS). */
#define KIDS_DYING_MS 500

/* Whether the master is running; one that ended is reaped here. Locked. */
static bool master_alive_locked(struct workers *ws)
{
	int st = 0;
	if (ws->master <= 0)
		return false;
	pid_t r = waitpid(ws->master, &st, WNOHANG);
	if (r == 0)
		return true;
	ws->master_status = r == ws->master ? st : 0;
	ws->master_stopped = false;
	ws->master = -1;
	return false;
}

/* Stop the master (its group: the children with it) and forget what
 * came of it. Locked. */
static void master_stop_locked(struct workers *ws)
{
	if (ws->master > 0) {
		int st = 0;
		if (kill(-ws->master, SIGKILL) < 0)
			kill(ws->master, SIGKILL);
		while (waitpid(ws->master, &st, 0) < 0 && errno == EINTR)
			;
		ws->master_status = st;
		ws->master_stopped = true;
		ws->master = -1;
	}
	if (ws->master_fd >= 0)
		close(ws->master_fd);
	ws->master_fd = -1;
	trace_read_release(&ws->master_trace);
	ws->master_trace = (struct trace_read)TRACE_READ_INIT;
	origin_response_release(&ws->master_boot);
	ws->master_booted = false;
	for (size_t i = 0; ws->slot_read && i < ws->n; i++) {
		if (ws->slot_read[i] >= 0)
			close(ws->slot_read[i]);
		ws->slot_read[i] = -1;
	}
}

/* A pipe whose ends are above min, the read end non-blocking. */
static int slot_pipe(int p[2], int min)
{
	if (pipe2(p, O_CLOEXEC) < 0)
		return -1;
	p[0] = worker_fd_above(p[0], min);
	p[1] = worker_fd_above(p[1], min);
	if (p[0] < 0 || p[1] < 0 || fcntl(p[0], F_SETFL, O_NONBLOCK) < 0) {
		if (p[0] >= 0)
			close(p[0]);
		if (p[1] >= 0)
			close(p[1]);
		return -1;
	}
	return 0;
}

/* What a read waits for in tr: kind is done's to use or not. */
typedef bool read_done_fn(const struct trace_read *tr, char kind);

/* Read fd into tr until done(tr, kind), the deadline or the pipe's end
 * (its writers gone): fed into to, or, to NULL, kept unread for a later
 * feed. Whether done. */
static bool read_until(int fd, struct trace_read *tr, const struct trace_lists *to, read_done_fn *done, char kind,
		       long long deadline)
{
	if (to)
		trace_read_feed(tr, "/", "", 0, to);
	while (fd >= 0 && !done(tr, kind)) {
		char chunk[65536];
		ssize_t r = read(fd, chunk, sizeof chunk);
		if (r > 0 && to)
			trace_read_feed(tr, "/", chunk, (size_t)r, to);
		else if (r > 0)
			trace_read_add(tr, chunk, (size_t)r);
		if (r > 0 || (r < 0 && errno == EINTR))
			continue;
		long long left = deadline - now_ms();
		if (r == 0 || (r < 0 && errno != EAGAIN) || left <= 0)
			break;
		struct pollfd pfd = { fd, POLLIN, 0 };
		poll(&pfd, 1, (int)(left > 100 ? 100 : left));
	}
	return done(tr, kind);
}

static bool booted(const struct trace_read *tr, char kind)
{
	(void)kind;
	return trace_read_done(tr);
}

static bool has_pid(const struct trace_read *tr, char kind)
{
	(void)kind;
	return tr->pid > 0 || tr->died >= 0;
}

static bool has_died(const struct trace_read *tr, char kind)
{
	(void)kind;
	return tr->died >= 0;
}

/* Read the master's start-up up to its "B 1", until the deadline: the
 * lists sorted and filtered once, as a worker's start-up is. Locked. */
static bool master_boot_locked(struct workers *ws, long long deadline)
{
	struct trace_lists to = origin_trace_lists(&ws->master_boot);
	if (ws->master_booted)
		return true;
	ws->master_trace.stop_at = 1;
	if (!read_until(ws->master_fd, &ws->master_trace, &to, booted, 0, deadline))
		return false;
	trace_read_finish(&to);
	struct strlist *each[] = { to.read, to.exist, to.listed, to.written };
	for (size_t k = 0; k < sizeof each / sizeof each[0]; k++)
		worker_trace_keep(ws, each[k]);
	ws->master_booted = true;
	return true;
}

/* Start a master with n fresh slots. Locked. */
static int master_start_locked(struct workers *ws, long timeout_s, char *err)
{
	size_t n = ws->n;
	int min = TRACE_FD + 1 + 2 * (int)n; /* above where the slots go */
	int *fds = xcalloc(2 * n, sizeof *fds), *reads = xcalloc(n, sizeof *reads);
	int devnull = -1, trace[2] = { -1, -1 }, rc = -1;
	for (size_t i = 0; i < 2 * n; i++)
		fds[i] = -1;
	for (size_t i = 0; i < n; i++)
		reads[i] = -1;
	if ((devnull = worker_fd_above(open("/dev/null", O_RDWR | O_CLOEXEC), min)) < 0) {
		err_sys(err, "cannot open '/dev/null'");
		goto out;
	}
	for (size_t i = 0; i < n; i++) {
		struct sockaddr_un sa = { .sun_family = AF_UNIX };
		strcpy(sa.sun_path, ws->w[i].sock);
		unlink(sa.sun_path);
		int p[2];
		fds[2 * i] = worker_fd_above(socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0), min);
		if (fds[2 * i] < 0 || bind(fds[2 * i], (struct sockaddr *)&sa, sizeof sa) < 0 ||
		    listen(fds[2 * i], 16) < 0) {
			err_sys(err, "cannot listen on '%s'", sa.sun_path);
			goto out;
		}
		if (slot_pipe(p, min) < 0) {
			err_sys(err, "cannot make a pipe");
			goto out;
		}
		reads[i] = p[0];
		fds[2 * i + 1] = p[1];
	}
	if (ws->traced && slot_pipe(trace, min) < 0) {
		err_sys(err, "cannot make a pipe");
		goto out;
	}
	/* fd 0 is a listening socket, as php-cgi wants to serve FastCGI:
	 * slot 0's; each child gets its own there. */
	struct spawn_req r = { .lfd = fds[0], .devnull = devnull, .tracefd = trace[1], .slots = fds,
			       .nslots = 2 * n, .envp = ws->master_envp };
	pid_t pid = worker_spawn(ws, &r);
	if (pid < 0) {
		err_sys(err, "cannot start '%s'", ws->argv[0]);
		goto out;
	}
	setpgid(pid, pid); /* as start() does: a kill of the group cannot come first */
	ws->master = pid;
	ws->gen++;
	for (size_t i = 0; i < n; i++) {
		ws->slot_read[i] = reads[i];
		reads[i] = -1;
	}
	ws->master_fd = trace[0];
	trace[0] = -1;
	rc = 0;
	/* Traced, its start-up's end says that it forks into the slots (the
	 * tracer runs in it): wait for it here, as every request needs it. */
	long wait_s = timeout_s < WORKERS_LISTEN_S ? timeout_s : WORKERS_LISTEN_S;
	if (ws->traced && !master_boot_locked(ws, now_ms() + wait_s * 1000)) {
		char why[ERR_LEN];
		if (master_alive_locked(ws))
			err_set(err, "did not fork its children within %ld s", wait_s);
		else
			err_set(err, "%s before forking its children",
				(workers_exit_reason(ws->master_status, why), why));
		master_stop_locked(ws);
		rc = -1;
	}
out:
	for (size_t i = 0; i < 2 * n; i++)
		if (fds[i] >= 0)
			close(fds[i]);
	for (size_t i = 0; i < n; i++)
		if (reads[i] >= 0)
			close(reads[i]);
	if (devnull >= 0)
		close(devnull);
	if (trace[0] >= 0)
		close(trace[0]);
	if (trace[1] >= 0)
		close(trace[1]);
	free(fds);
	free(reads);
	return rc;
}

/* w's trace begins again with what its pipe holds after its child's D
 * line: the next child's. */
static void slot_fresh(struct worker *w)
{
	struct buf rest = w->trace.pending;
	w->trace.pending = (struct buf)BUF_INIT;
	trace_read_release(&w->trace);
	w->trace = (struct trace_read)TRACE_READ_INIT;
	w->trace.slot = true;
	w->trace.pending = rest;
	w->conns = 0;
	w->served = 0;
	origin_response_release(&w->boot);
}

/* What w's pipe has now, kept for a later feed, unread; until its
 * stream holds a line of kind, the deadline or the pipe's end. Whether
 * it holds one. */
static bool slot_peek(struct worker *w, char kind, long long deadline)
{
	return read_until(w->trace_fd, &w->trace, NULL, trace_read_holds, kind, deadline);
}

/* Whether w's pipe has no writer left: its master and children ended. */
static bool slot_ended(const struct worker *w)
{
	struct pollfd pfd = { w->trace_fd, POLLIN, 0 };
	return w->trace_fd >= 0 && poll(&pfd, 1, 0) == 1 && (pfd.revents & POLLHUP);
}

/* Whether w belongs to the running master; *status: how the last master
 * ended. A master closes its files before it can be reaped: one whose
 * pipe ended is waited for (KIDS_END_MS at most), not taken for alive. */
static bool slot_current(struct workers *ws, const struct worker *w, pid_t *master, int *status)
{
	long long deadline = now_ms() + KIDS_END_MS;
	for (;;) {
		pthread_mutex_lock(&ws->kids_lock);
		bool current = master_alive_locked(ws) && w->gen == ws->gen;
		*master = ws->master;
		*status = ws->master_status;
		pthread_mutex_unlock(&ws->kids_lock);
		if (!current || !slot_ended(w) || now_ms() >= deadline)
			return current;
		struct timespec pause = { 0, 2 * 1000 * 1000 };
		nanosleep(&pause, NULL);
	}
}

/* The slot cannot be told apart any more: its master goes (when it is
 * still the one running), and the next request starts another. */
static void master_give_up(struct workers *ws, const struct worker *w)
{
	pthread_mutex_lock(&ws->kids_lock);
	if (w->gen == ws->gen)
		master_stop_locked(ws);
	pthread_mutex_unlock(&ws->kids_lock);
}

/* Start the master if none runs, and give w a slot of it if w has none.
 * Locked inside. Whether w was given one: *adopted. */
static int master_ensure(struct workers *ws, struct worker *w, long timeout_s, bool *adopted, char *err)
{
	int rc = 0;
	*adopted = false;
	pthread_mutex_lock(&ws->kids_lock);
	if (!master_alive_locked(ws)) {
		master_stop_locked(ws);
		rc = master_start_locked(ws, timeout_s, err);
	}
	if (rc == 0 && w->gen != ws->gen) {
		size_t i = (size_t)(w - ws->w);
		if (w->trace_fd >= 0)
			close(w->trace_fd);
		w->trace_fd = ws->slot_read[i];
		ws->slot_read[i] = -1;
		trace_read_release(&w->trace);
		w->trace = (struct trace_read)TRACE_READ_INIT;
		slot_fresh(w);
		w->gen = ws->gen;
		*adopted = true;
	}
	pthread_mutex_unlock(&ws->kids_lock);
	return rc;
}

int kids_ensure(struct workers *ws, struct worker *w, long timeout_s, char *err)
{
	long wait_s = timeout_s < WORKERS_LISTEN_S ? timeout_s : WORKERS_LISTEN_S;
	long long deadline = now_ms() + wait_s * 1000;
	bool adopted;
	int rc;
	/* Its child says hello as it takes the slot: where the tracer did
	 * not load (and so gave no slots), php-cgi's children would all
	 * accept on slot 0's socket, and the other slots' requests wait for
	 * ever. The request would wait for the child anyway. A master that
	 * another thread gave up, or that ended, meanwhile is no reason to
	 * fail this request: once more, on a new one, within the same time. */
	for (int tries = 0; (rc = master_ensure(ws, w, timeout_s, &adopted, err)) == 0 && adopted; tries++) {
		if (slot_peek(w, TRACE_HELLO, deadline))
			break;
		pid_t master;
		int status;
		char why[ERR_LEN];
		if (slot_current(ws, w, &master, &status)) {
			err_set(err, "did not fork a child into its slot within %ld s (cgisnap's tracer did not run in it)",
				wait_s);
			master_give_up(ws, w);
			return -1;
		}
		if (tries == 0 && now_ms() < deadline)
			continue;
		pthread_mutex_lock(&ws->kids_lock);
		bool stopped = ws->master_stopped;
		pthread_mutex_unlock(&ws->kids_lock);
		if (stopped)
			err_set(err, "was stopped by cgisnap before forking a child into its slot");
		else
			err_set(err, "%s before forking a child into its slot", (workers_exit_reason(status, why), why));
		return -1;
	}
	if (rc == 0 && !w->conn) {
		char *addr = xasprintf("unix:%s", w->sock);
		w->conn = ws->traced ? fcgi_open_one_shot(addr, err) : fcgi_open(addr, err);
		free(addr);
		if (!w->conn)
			rc = -1;
	}
	return rc;
}

bool kids_running(struct workers *ws, struct worker *w)
{
	pthread_mutex_lock(&ws->kids_lock);
	bool alive = master_alive_locked(ws) && w->gen == ws->gen;
	pthread_mutex_unlock(&ws->kids_lock);
	return alive && w->conn;
}

/* Read w's pipe until done, the deadline or the pipe's end (the master
 * and its children gone); the paths read are dropped. Whether done. */
static bool slot_read_until(struct worker *w, read_done_fn *done, long long deadline)
{
	struct origin_response scratch;
	origin_response_init(&scratch);
	struct trace_lists to = origin_trace_lists(&scratch);
	w->trace.stop_at = 0;
	trace_read_want(&w->trace, 0);
	bool ok = read_until(w->trace_fd, &w->trace, &to, done, 0, deadline);
	origin_response_release(&scratch);
	return ok;
}

/* pid's state and parent (/proc/PID/stat's third and fourth fields):
 * false when it is gone. */
static bool proc_stat(long pid, char *state, long *ppid)
{
	char path[64], text[512];
	snprintf(path, sizeof path, "/proc/%ld/stat", pid);
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return false;
	ssize_t n = read(fd, text, sizeof text - 1);
	close(fd);
	if (n <= 0)
		return false;
	text[n] = '\0';
	char *end = strrchr(text, ')'); /* after the command's name, which may hold anything */
	return end && sscanf(end + 1, " %c %ld", state, ppid) == 2;
}

/* Whether pid is a child of master: a pid read from a pipe the site's
 * code can write to is killed only then. */
static bool child_of(long pid, pid_t master)
{
	char state;
	long ppid;
	return proc_stat(pid, &state, &ppid) && ppid == (long)master;
}

/* Whether pid runs: neither gone nor a zombie. */
static bool pid_runs(long pid)
{
	char state;
	long ppid;
	return proc_stat(pid, &state, &ppid) && state != 'Z' && state != 'X';
}

/* Kill w's child with the programs it started (its process group). */
static void kill_child(struct worker *w, pid_t master)
{
	long pid = w->trace.pid;
	if (pid <= 1 || master <= 0 || !child_of(pid, master))
		return;
	if (kill(-(pid_t)pid, SIGKILL) < 0)
		kill((pid_t)pid, SIGKILL);
}

void kids_prepare(struct workers *ws, struct worker *w)
{
	(void)ws;
	/* A child that ended while idle left its D line, and the next one's
	 * lines after it (each one's, when several ended): this request is
	 * the last one's. The master writes the D line once it has reaped
	 * the child: a child known to be gone already (a recycle, a kill)
	 * is waited for, or its line would come in this request's trace
	 * and end it. */
	for (;;) {
		bool gone = w->trace.pid > 1 && w->trace.died < 0 && !pid_runs(w->trace.pid);
		long long deadline = now_ms() + (gone ? KIDS_END_MS : 0);
		if (!slot_peek(w, TRACE_DIED, deadline) || !slot_read_until(w, has_died, deadline))
			break;
		slot_fresh(w);
	}
}

void kids_stop(struct workers *ws, struct worker *w)
{
	pid_t master;
	int status;
	if (has_died(&w->trace, 0)) {
		slot_fresh(w);
		return;
	}
	if (!slot_current(ws, w, &master, &status))
		return; /* its master is gone: the slot is taken anew */
	long long deadline = now_ms() + KIDS_END_MS;
	slot_read_until(w, has_pid, deadline);
	/* Not when its end is told already: its pid may be another's now. */
	if (!has_died(&w->trace, 0) && !slot_peek(w, TRACE_DIED, now_ms()))
		kill_child(w, master);
	if (slot_read_until(w, has_died, deadline))
		slot_fresh(w);
	else
		master_give_up(ws, w);
}

int kids_bury(struct workers *ws, struct worker *w, char *err)
{
	pid_t master;
	int status;
	if (slot_current(ws, w, &master, &status) && !slot_read_until(w, has_died, now_ms() + KIDS_DYING_MS) &&
	    slot_current(ws, w, &master, &status)) {
		kids_stop(ws, w); /* alive: a timeout, too much output */
		return 0;
	}
	if (has_died(&w->trace, 0)) {
		workers_exit_reason(w->trace.died, err);
		slot_fresh(w);
		return 1;
	}
	/* The master itself ended (a php-cgi that cannot run): its status. */
	workers_exit_reason(status, err);
	return 1;
}

bool kids_add_master_boot(struct workers *ws, struct worker *w)
{
	pthread_mutex_lock(&ws->kids_lock);
	bool ok = w->gen == ws->gen && master_boot_locked(ws, now_ms() + WORKERS_LISTEN_S * 1000LL);
	if (ok) {
		struct trace_lists mine = origin_trace_lists(&w->boot), all = origin_trace_lists(&ws->master_boot);
		strlist_merge(mine.read, all.read);
		strlist_merge(mine.exist, all.exist);
		strlist_merge(mine.listed, all.listed);
		strlist_merge(mine.written, all.written);
	}
	pthread_mutex_unlock(&ws->kids_lock);
	return ok;
}

void kids_close(struct workers *ws)
{
	pid_t master;
	int status;
	/* The children are process groups of their own (with the programs
	 * they started); they would die with the master, those programs not. */
	for (size_t i = 0; i < ws->n; i++) {
		struct worker *w = &ws->w[i];
		if (w->trace_fd < 0 || !slot_current(ws, w, &master, &status))
			continue;
		slot_read_until(w, has_pid, now_ms());
		if (!has_died(&w->trace, 0))
			kill_child(w, master);
	}
	pthread_mutex_lock(&ws->kids_lock);
	master_stop_locked(ws);
	pthread_mutex_unlock(&ws->kids_lock);
}
