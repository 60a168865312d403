/* workertrace.c - a traced worker's stream (workers_impl.h), cut into
 * its start-up and its requests.
 *
 * Each worker has a trace pipe of its own on its fd 3 and
 * CGISNAP_TRACE_ACCEPT=0, so that the tracer writes "B n" as the worker
 * enters accept for its n-th connection. Requests go through a one-shot
 * pool (fcgi.c): one connection each, so the worker returns to accept
 * after each. Each connection's own end is named with an id of its own,
 * which the tracer writes as it accepts it ("A id"): a request's lines
 * are those from its A line to the next B line, so that a connection
 * cgisnap gave up on (a timeout) that the worker, or php-cgi's next child
 * in the slot, serves all the same is never taken for the next request.
 * (Without the id, the k-th request of a worker ends at "B k+1".) What came
 * before "B 1" is the worker's start-up (php.ini, extensions): kept,
 * sorted once, and merged into every request it serves, as each process
 * of fork mode would report it again. The pipe is read while the request
 * waits (fcgi_run_side), then up to the boundary: nothing of a request is
 * lost or given to the next one.
 */
#include "origin/workers_impl.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/clock.h"
#include "base/log.h"
#include "base/xalloc.h"
#include "origin/origin_impl.h"
#include "trace/protocol.h"

/* fd moved to TRACE_FD + 1 or above, close-on-exec; -1 on error (fd
 * closed). */
static int above_trace_fd(int fd)
{
	if (fd < 0 || fd > TRACE_FD)
		return fd;
	int moved = fcntl(fd, F_DUPFD_CLOEXEC, TRACE_FD + 1);
	close(fd);
	return moved;
}

int worker_trace_pipe(struct worker *w, int *wfd, char ***envp, char *err)
{
	int p[2];
	struct stat st;
	if (pipe2(p, O_CLOEXEC) < 0)
		return err_sys(err, "cannot make a pipe");
	p[0] = above_trace_fd(p[0]);
	p[1] = above_trace_fd(p[1]);
	if (p[0] < 0 || p[1] < 0 || fstat(p[1], &st) < 0 || fcntl(p[0], F_SETFL, O_NONBLOCK) < 0) {
		err_sys(err, "cannot make a pipe");
		if (p[0] >= 0)
			close(p[0]);
		if (p[1] >= 0)
			close(p[1]);
		return -1;
	}
	size_t n = 0;
	while (w->envp[n])
		n++;
	char **v = xcalloc(n + 3, sizeof *v);
	memcpy(v, w->envp, n * sizeof *v);
	v[n] = xasprintf(TRACE_FD_ENV "=%d:%llu", TRACE_FD, (unsigned long long)st.st_ino);
	v[n + 1] = xstrdup(TRACE_ACCEPT_ENV "=0");
	w->trace_fd = p[0];
	*wfd = p[1];
	*envp = v;
	return 0;
}

void worker_trace_env_free(struct worker *w, char **envp)
{
	if (envp == w->envp)
		return;
	size_t n = 0;
	while (w->envp[n])
		n++;
	free(envp[n]);
	free(envp[n + 1]);
	free(envp);
}

void worker_trace_keep(struct workers *ws, struct strlist *l)
{
	size_t kept = 0;
	if (!ws->keep)
		return;
	for (size_t i = 0; i < l->n; i++)
		if (ws->keep(ws->keep_arg, l->items[i]))
			l->items[kept++] = l->items[i];
		else
			free(l->items[i]);
	l->n = kept;
}

void worker_trace_feed(void *arg, const char *data, size_t n)
{
	struct trace_take *t = arg;
	struct worker *w = t->w;
	if (!n)
		t->eof = true;
	for (;;) {
		/* The start-up up to "B 1"; then the request's connection, told
		 * by its id (or else the conns-th connection since the start). */
		bool boot = w->trace.boundary == 0;
		if (boot)
			trace_read_want(&w->trace, 0);
		else if (t->conn_id && w->trace.want_conn != t->conn_id)
			trace_read_want(&w->trace, t->conn_id);
		w->trace.stop_at = boot ? 1 : w->conns + 1;
		struct trace_lists to = origin_trace_lists(boot ? &w->boot : t->rs);
		trace_read_feed(&w->trace, boot ? "/" : t->dir, data, n, &to);
		data = "", n = 0;
		if (!boot || !trace_read_done(&w->trace))
			return;
		/* Sorted once, and what the caller cannot use dropped once:
		 * each request's own lists are merged with them. */
		trace_read_finish(&to);
		struct strlist *each[] = { to.read, to.exist, to.listed, to.written };
		for (size_t k = 0; k < sizeof each / sizeof each[0]; k++)
			worker_trace_keep(t->ws, each[k]);
		/* php-cgi's child: its start-up is its master's too. */
		if (t->ws->children && !kids_add_master_boot(t->ws, w) && !w->trace.lost)
			w->trace.lost = xstrdup("did not finish its master's start-up trace");
	}
}

/* Whether the request's trace is whole now: its boundary came, or it
 * never will (the tracer did not run, or fell silent, or php-cgi's child
 * ended: then it is not whole). */
static bool trace_taken(const struct worker *w)
{
	return trace_read_done(&w->trace) || !w->trace.hello || w->trace.lost || w->trace.died >= 0;
}

/* After the response: the rest of the request's trace, up to its
 * boundary. The worker wrote everything up to the response before the
 * response, so a tracer that said hello and stays whole sends the
 * boundary as soon as the worker is back in accept: that is waited for,
 * until the deadline. 0, or -1 when it did not come. */
int worker_trace_finish(struct trace_take *t, long long deadline)
{
	struct worker *w = t->w;
	worker_trace_feed(t, "", 0);
	t->eof = false;
	for (;;) {
		char chunk[65536];
		ssize_t r = read(w->trace_fd, chunk, sizeof chunk);
		if (r > 0) {
			worker_trace_feed(t, chunk, (size_t)r);
			continue;
		}
		if (r < 0 && errno == EINTR)
			continue;
		if (r == 0 || (r < 0 && errno != EAGAIN))
			return trace_taken(w) && w->trace.died < 0 ? 0 : -1;
		/* all there is, for now */
		if (trace_taken(w))
			return w->trace.died < 0 ? 0 : -1;
		struct pollfd pfd = { w->trace_fd, POLLIN, 0 };
		long long left = deadline - now_ms();
		if (left <= 0)
			return -1;
		poll(&pfd, 1, (int)(left > 1000 ? 1000 : left));
	}
}

/* The request's dependencies as fork mode's would be: its own and the
 * worker's start-up's (sorted when it ended), sorted; and whether they
 * are whole. */
void worker_trace_result(struct workers *ws, struct worker *w, bool whole, struct origin_response *rs)
{
	struct trace_lists own = origin_trace_lists(rs), boot = origin_trace_lists(&w->boot);
	trace_read_finish(&own);
	if (!w->trace.boundary) /* the start-up never ended: all was its */
		trace_read_finish(&boot);
	strlist_merge(own.read, boot.read);
	strlist_merge(own.exist, boot.exist);
	strlist_merge(own.listed, boot.listed);
	strlist_merge(own.written, boot.written);
	if (rs->untraced)
		return;
	const char *gap = whole ? trace_read_gap(&w->trace, ws->argv[0])
			  : w->trace.died >= 0 ? "ended before its request's trace was whole (persistent worker)"
					       : "did not finish a request's trace in time (persistent worker)";
	if (gap)
		origin_mark_untraced(rs, ws->argv[0], gap);
}

