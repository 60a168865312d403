/* control.c - watch's control socket: who may talk, the request lines,
 * the answers (see control.h). Non-blocking throughout: a peer that
 * sends half a request or reads nothing never holds the loop up. */
#include "control.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/log.h"
#include "base/xalloc.h"

/* ---- requests ---- */

void control_request_release(struct control_request *rq)
{
	strlist_clear(&rq->urls);
	strlist_clear(&rq->paths);
	rq->wait = false;
	rq->idle = false;
}

int control_parse(const char *text, size_t len, struct control_request *rq, char *err)
{
	if (memchr(text, '\0', len))
		return err_set(err, "bad request: it holds a NUL byte");
	const char *p = text, *end = text + len;
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t n = (size_t)((nl ? nl : end) - p);
		if (n && p[n - 1] == '\r')
			n--;
		if (!n)
			break; /* the empty line ends the request */
		char *line = xstrndup(p, n);
		if (!strncmp(line, "url ", 4) && line[4]) {
			strlist_add(&rq->urls, line + 4);
		} else if (!strncmp(line, "path ", 5) && line[5] == '/') {
			strlist_add(&rq->paths, line + 5);
		} else if (!strcmp(line, "wait")) {
			rq->wait = true;
		} else if (!strcmp(line, "idle")) {
			rq->idle = true;
		} else {
			err_set(err,
				"bad request line '%.200s': expected 'url TARGET', 'path /ABSOLUTE/PATH', 'wait' or 'idle'",
				line);
			free(line);
			return -1;
		}
		free(line);
		p = nl ? nl + 1 : end;
	}
	if (rq->idle && (rq->urls.n || rq->paths.n || rq->wait))
		return err_set(err, "bad request: 'idle' goes alone");
	if (!rq->idle && !rq->urls.n && !rq->paths.n)
		return err_set(err, "bad request: it names no URL and no path");
	return 0;
}

void control_address(int meta_fd, const char *meta_path, struct sockaddr_un *sa, socklen_t *len)
{
	memset(sa, 0, sizeof *sa);
	sa->sun_family = AF_UNIX;
	int n = snprintf(sa->sun_path, sizeof sa->sun_path, "%s/%s", meta_path, CONTROL_NAME);
	if (n < 0 || (size_t)n >= sizeof sa->sun_path)
		n = snprintf(sa->sun_path, sizeof sa->sun_path, "/proc/self/fd/%d/%s", meta_fd, CONTROL_NAME);
	*len = (socklen_t)(offsetof(struct sockaddr_un, sun_path) + (size_t)n + 1);
}

/* ---- the socket ---- */

/* WAITING: for the batch that takes its request; IDLE: for a loop with
 * nothing pending. */
enum client_state { READING, WAITING, IDLE, CLOSING };

struct client {
	int fd;
	enum client_state state;
	bool eof;              /* the peer sent all it will */
	bool dead;
	struct buf in;
	struct buf out;
	size_t sent;
	struct strlist targets; /* the request's URLs, canonical */
};

struct control {
	int fd;
	int meta_fd;
	char *path; /* for messages */
	dev_t dev;
	ino_t ino;
	struct client *clients[CONTROL_MAX_CLIENTS];
	size_t n;
	size_t polled; /* clients control_pollfds gave descriptors for */
	bool listening;
};

struct control *control_open(struct tree *t, char *err)
{
	struct control *c = xcalloc(1, sizeof *c);
	char *meta = xasprintf("%s/%s", t->path, TREE_META_DIR);
	struct sockaddr_un sa;
	socklen_t salen;
	struct stat st;

	c->fd = -1;
	c->meta_fd = t->meta_fd;
	c->path = xasprintf("%s/%s", meta, CONTROL_NAME);
	/* The tree's lock is held: a socket there is a killed watch's. */
	if (fstatat(t->meta_fd, CONTROL_NAME, &st, AT_SYMLINK_NOFOLLOW) == 0) {
		if (!S_ISSOCK(st.st_mode)) {
			err_set(err, "'%s' is not a socket: remove it, watch makes its control socket there", c->path);
			goto fail;
		}
		if (unlinkat(t->meta_fd, CONTROL_NAME, 0) < 0 && errno != ENOENT) {
			err_sys(err, "cannot remove the stale control socket '%s'", c->path);
			goto fail;
		}
	}
	c->fd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (c->fd < 0) {
		err_sys(err, "cannot make the control socket '%s'", c->path);
		goto fail;
	}
	control_address(t->meta_fd, meta, &sa, &salen);
	/* Made 0600 from the start: no moment when others could connect. */
	mode_t old = umask(077);
	int rc = bind(c->fd, (struct sockaddr *)&sa, salen);
	umask(old);
	if (rc < 0) {
		err_sys(err, "cannot make the control socket '%s'", c->path);
		goto fail;
	}
	if (fchmodat(t->meta_fd, CONTROL_NAME, 0600, 0) < 0 ||
	    fstatat(t->meta_fd, CONTROL_NAME, &st, AT_SYMLINK_NOFOLLOW) < 0 || listen(c->fd, 16) < 0) {
		err_sys(err, "cannot set up the control socket '%s'", c->path);
		unlinkat(t->meta_fd, CONTROL_NAME, 0);
		goto fail;
	}
	c->dev = st.st_dev;
	c->ino = st.st_ino;
	free(meta);
	return c;
fail:
	if (c->fd >= 0)
		close(c->fd);
	free(c->path);
	free(c);
	free(meta);
	return NULL;
}

/* Send what is pending; a peer that went away is dropped. */
static void flush(struct client *cl)
{
	while (cl->sent < cl->out.len) {
		ssize_t w = send(cl->fd, cl->out.data + cl->sent, cl->out.len - cl->sent, MSG_NOSIGNAL | MSG_DONTWAIT);
		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
			return;
		if (w <= 0) {
			cl->dead = true;
			return;
		}
		cl->sent += (size_t)w;
	}
	if (cl->state == CLOSING)
		cl->dead = true;
}

/* Queue one answer line (a newline inside a value becomes a space: each
 * line is one record). */
static void say(struct client *cl, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void say(struct client *cl, const char *fmt, ...)
{
	va_list ap;
	char *s;
	va_start(ap, fmt);
	int n = vasprintf(&s, fmt, ap);
	va_end(ap);
	if (n < 0) {
		cl->dead = true; /* out of memory: this peer gets nothing more */
		return;
	}
	for (char *p = s; *p; p++)
		if (*p == '\n' || *p == '\r')
			*p = ' ';
	buf_adds(&cl->out, s);
	buf_addc(&cl->out, '\n');
	free(s);
}

static void reap(struct control *c);

/* Make room for one more peer when every slot is taken: the oldest one
 * still to send its request goes (a peer that connects and says nothing
 * must not keep others out); false when all are waiting for batches. */
static bool make_room(struct control *c)
{
	if (c->n < CONTROL_MAX_CLIENTS)
		return true;
	for (size_t i = 0; i < c->n; i++) {
		struct client *old = c->clients[i];
		if (old->state != READING)
			continue;
		say(old, "error dropped: %d notifies at once, and this one had not sent its request",
		    CONTROL_MAX_CLIENTS);
		flush(old);
		old->dead = true;
		reap(c);
		return true;
	}
	return false;
}

/* Accept one peer, if it may talk. */
static void take_client(struct control *c)
{
	int fd = accept4(c->fd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
	if (fd < 0)
		return;
	if (!make_room(c)) {
		static const char busy[] = "error watch has too many notifies waiting for a batch: try again\n";
		if (send(fd, busy, sizeof busy - 1, MSG_NOSIGNAL | MSG_DONTWAIT) < 0)
			log_debug("a notify refused for want of room went away first");
		close(fd);
		return;
	}
	struct client *cl = xcalloc(1, sizeof *cl);
	cl->fd = fd;
	cl->state = READING;
	c->clients[c->n++] = cl;

	struct ucred cred;
	socklen_t len = sizeof cred;
	if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &len) < 0) {
		say(cl, "error cannot tell who is asking: %s", strerror(errno));
		cl->state = CLOSING;
	} else if (cred.uid != geteuid() && cred.uid != 0) {
		log_warn("refused a notify from uid %u (pid %d): only uid %u and root may notify", (unsigned)cred.uid,
			 (int)cred.pid, (unsigned)geteuid());
		say(cl, "error uid %u may not notify this watch: only uid %u and root may", (unsigned)cred.uid,
		    (unsigned)geteuid());
		cl->state = CLOSING;
	}
	flush(cl);
}

/* The request's end in cl->in, or 0 while it is incomplete: the length
 * up to and with its empty line. */
static size_t request_end(const struct client *cl)
{
	const char *d = cl->in.data;
	size_t n = cl->in.len;
	if (n && d[0] == '\n')
		return 1;
	for (size_t i = 1; i < n; i++)
		if (d[i] == '\n' && (d[i - 1] == '\n' || (d[i - 1] == '\r' && i >= 2 && d[i - 2] == '\n')))
			return i + 1;
	return cl->eof ? n : 0;
}

/* A complete request: parse it, hand it to the loop, answer. */
static void serve_request(struct client *cl, size_t len, control_fn fn, void *arg)
{
	struct control_request rq = CONTROL_REQUEST_INIT;
	char err[ERR_LEN], reply[256];
	reply[0] = '\0';
	int parsed = control_parse(cl->in.data ? cl->in.data : "", len, &rq, err);
	if (parsed == 0 && rq.idle) {
		cl->state = IDLE; /* answered by control_idle */
	} else if (parsed < 0 || fn(arg, &rq, &cl->targets, reply, sizeof reply, err) < 0) {
		say(cl, "error %s", err);
		cl->state = CLOSING;
	} else {
		say(cl, "ok %s", reply);
		cl->state = rq.wait ? WAITING : CLOSING;
	}
	control_request_release(&rq);
	flush(cl);
}

/* Read what a peer sent. */
static void read_client(struct client *cl, control_fn fn, void *arg)
{
	char chunk[4096];
	for (;;) {
		ssize_t r = read(cl->fd, chunk, sizeof chunk);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
			break;
		if (r < 0) {
			cl->dead = true;
			return;
		}
		if (r == 0) {
			cl->eof = true; /* a waiting peer may have shut its side only */
			break;
		}
		if (cl->state == READING)
			buf_add(&cl->in, chunk, (size_t)r);
		if (cl->in.len > CONTROL_MAX_REQUEST) {
			say(cl, "error the request is longer than %d bytes", CONTROL_MAX_REQUEST);
			cl->state = CLOSING;
			flush(cl);
			return;
		}
	}
	if (cl->state != READING)
		return;
	size_t end = request_end(cl);
	if (end)
		serve_request(cl, end, fn, arg);
	else if (cl->eof)
		cl->dead = true; /* gone before saying anything */
}

static void free_client(struct client *cl)
{
	close(cl->fd);
	buf_release(&cl->in);
	buf_release(&cl->out);
	strlist_clear(&cl->targets);
	free(cl);
}

/* Drop the clients that are done. */
static void reap(struct control *c)
{
	size_t k = 0;
	for (size_t i = 0; i < c->n; i++) {
		if (c->clients[i]->dead)
			free_client(c->clients[i]);
		else
			c->clients[k++] = c->clients[i];
	}
	c->n = k;
}

size_t control_pollfds(struct control *c, struct pollfd *pfd, size_t max)
{
	size_t k = 0;
	c->polled = 0;
	c->listening = false;
	if (k < max) {
		pfd[k++] = (struct pollfd){ c->fd, POLLIN, 0 };
		c->listening = true;
	}
	for (size_t i = 0; i < c->n && k < max; i++) {
		struct client *cl = c->clients[i];
		short ev = cl->eof ? 0 : POLLIN;
		if (cl->sent < cl->out.len)
			ev |= POLLOUT;
		pfd[k++] = (struct pollfd){ cl->fd, ev, 0 };
		c->polled++;
	}
	return k;
}

void control_handle(struct control *c, const struct pollfd *pfd, size_t n, control_fn fn, void *arg)
{
	size_t k = 0;
	bool accept_now = false;
	if (c->listening && k < n)
		accept_now = pfd[k++].revents & POLLIN;
	for (size_t i = 0; i < c->polled && k < n; i++, k++) {
		struct client *cl = c->clients[i];
		short rev = pfd[k].revents;
		if (rev & (POLLIN | POLLHUP | POLLERR))
			read_client(cl, fn, arg);
		if ((rev & POLLHUP) && (cl->state == WAITING || cl->state == IDLE))
			cl->dead = true; /* hung up: no one to answer */
		if (!cl->dead && (rev & POLLOUT))
			flush(cl);
	}
	reap(c);
	if (accept_now)
		take_client(c);
	reap(c);
}

bool control_waiting(const struct control *c)
{
	for (size_t i = 0; c && i < c->n; i++)
		if (c->clients[i]->state == WAITING)
			return true;
	return false;
}

bool control_idle_waiting(const struct control *c)
{
	for (size_t i = 0; c && i < c->n; i++)
		if (c->clients[i]->state == IDLE)
			return true;
	return false;
}

/* Answer the peers that asked for idle (error NULL: the loop has nothing
 * pending), or tell them why not. */
static void answer_idle(struct control *c, const char *error)
{
	for (size_t i = 0; i < c->n; i++) {
		struct client *cl = c->clients[i];
		if (cl->state != IDLE)
			continue;
		if (error)
			say(cl, "error %s", error);
		else
			say(cl, "ok nothing pending");
		cl->state = CLOSING;
		flush(cl);
	}
	reap(c);
}

void control_idle(struct control *c, const char *error)
{
	if (c)
		answer_idle(c, error);
}

/* The last lines for one waiting peer. */
static void answer(struct client *cl, const struct crawl_result *res, const char *error)
{
	if (!res) {
		say(cl, "error %s", error);
		return;
	}
	long own = 0;
	for (size_t i = 0; i < res->changed_keys.n; i++)
		say(cl, "changed %s", res->changed_keys.items[i]);
	for (size_t i = 0; i < res->nfailures; i++) {
		say(cl, "failed %s\t%s", res->failures[i].target, res->failures[i].reason);
		own += strlist_contains(&cl->targets, res->failures[i].target);
	}
	long files = res->stored_new + res->stored_changed;
	if (error)
		say(cl, "error %s", error);
	else if (own && cl->targets.n == 1)
		say(cl, "error the notified URL failed");
	else if (own)
		say(cl, "error %ld of the %zu notified URLs failed", own, cl->targets.n);
	else
		say(cl, "done %ld URL%s re-rendered, %ld file%s changed, %ld removed%s", crawl_rendered(res),
		    crawl_rendered(res) == 1 ? "" : "s", files, files == 1 ? "" : "s", res->removed,
		    res->failed ? ", other URLs failed" : "");
}

void control_batch_done(struct control *c, const struct crawl_result *res, const char *error)
{
	if (!c)
		return;
	for (size_t i = 0; i < c->n; i++) {
		struct client *cl = c->clients[i];
		if (cl->state != WAITING)
			continue;
		answer(cl, res, error);
		cl->state = CLOSING;
		flush(cl);
	}
	reap(c);
}

void control_close(struct control *c)
{
	if (!c)
		return;
	control_batch_done(c, NULL, "watch stopped before the batch ran");
	answer_idle(c, "watch stopped");
	for (size_t i = 0; i < c->n; i++)
		free_client(c->clients[i]);
	close(c->fd);
	/* Only the socket this watch made: never one someone put in its place. */
	struct stat st;
	if (fstatat(c->meta_fd, CONTROL_NAME, &st, AT_SYMLINK_NOFOLLOW) == 0 && st.st_dev == c->dev &&
	    st.st_ino == c->ino)
		unlinkat(c->meta_fd, CONTROL_NAME, 0);
	free(c->path);
	free(c);
}
