/* control.h - watch's control socket, DIR/.cgisnap/control, through which
 * 'cgisnap notify' names pages and files that changed where inotify
 * cannot see (a database row, a deploy elsewhere).
 *
 * A unix stream socket, mode 0600, made by the watch holding the tree's
 * lock (so any socket already there is a killed watch's: replaced) and
 * removed when it stops. Only a peer whose SO_PEERCRED uid is watch's
 * own or root is heard; others get an error line.
 *
 * The protocol is lines of text. A request is one or more lines ended
 * by an empty line (or the end of the connection):
 *
 *     url TARGET     a page: "/post?id=3" or an absolute URL of the site
 *     path PATH      an absolute filesystem path that changed
 *     wait           answer again when the batch with these is published
 *     idle           alone: answer "ok nothing pending" once every change
 *                    read so far is rendered and published (a held page's
 *                    retry included), or "error MESSAGE" when it cannot be
 *                    (a source missing, a batch that could not write the
 *                    tree), queuing nothing
 *
 * The answer is "ok SUMMARY" (queued) or "error MESSAGE" (nothing was
 * queued), then, for "wait", "changed KEY" for each file the batch wrote
 * or removed, "failed TARGET\tREASON" for each URL that failed, and a
 * last line "done SUMMARY", or "error MESSAGE" when one of the request's
 * own URLs failed, the tree could not be written, or watch stopped first.
 * No value holds a newline; a path may hold spaces and tabs.
 *
 * The watch side, from its loop:
 *
 *     struct control *c = control_open(&tree, err);
 *     n = control_pollfds(c, pfd, max);   ... poll ...
 *     control_handle(c, pfd, n, on_request, arg);
 *     ... after each batch: control_batch_done(c, &res, NULL);
 *     ... when nothing is pending: control_idle(c, NULL) if control_idle_waiting(c);
 *     control_close(c);                   (answers waiters, removes the socket)
 */
#ifndef CGISNAP_WATCH_CONTROL_H
#define CGISNAP_WATCH_CONTROL_H

#include <poll.h>
#include <stdbool.h>
#include <stddef.h>
#include <sys/socket.h>
#include <sys/un.h>

#include "base/buf.h"
#include "crawl/crawl.h"
#include "tree/tree.h"

#define CONTROL_NAME "control"
/* A request longer than this is refused (a notify names a few pages). */
#define CONTROL_MAX_REQUEST (256 * 1024)
/* Connections served at once: beyond them, the oldest one that has not
 * sent its request yet is dropped, or the new one refused. */
#define CONTROL_MAX_CLIENTS 16

struct control_request {
	struct strlist urls;  /* as given */
	struct strlist paths; /* absolute */
	bool wait;
	bool idle;
};

#define CONTROL_REQUEST_INIT { STRLIST_INIT, STRLIST_INIT, false, false }

/* Parse a request's lines (text, len bytes, up to the empty line); -1
 * with err naming the bad line ("bad request line 'x': expected 'url
 * TARGET', 'path PATH' or 'wait'"), or when it names nothing. */
int control_parse(const char *text, size_t len, struct control_request *rq, char *err);
void control_request_release(struct control_request *rq);

/* The address of the control socket in the directory open as meta_fd
 * (path: how to name it in the address when short enough; through
 * /proc/self/fd otherwise, as sun_path is 108 bytes). */
void control_address(int meta_fd, const char *meta_path, struct sockaddr_un *sa, socklen_t *len);

struct control;

/* Make the socket in t's .cgisnap/ (t locked); NULL with err. */
struct control *control_open(struct tree *t, char *err);

/* What the loop hears: rq parsed, from a permitted peer. Return 0 after
 * queuing it, with a summary in reply ("1 URL queued") and the canonical
 * targets of its URLs in targets (to tell the peer whether they failed);
 * or -1 with err, nothing queued. */
typedef int (*control_fn)(void *arg, const struct control_request *rq, struct strlist *targets, char *reply,
			  size_t replylen, char *err);

/* Fill pfd with the descriptors to wait on (at most max); their count. */
size_t control_pollfds(struct control *c, struct pollfd *pfd, size_t max);
/* Act on what poll reported for the descriptors control_pollfds gave:
 * accept, read, answer, call fn for each complete request. */
void control_handle(struct control *c, const struct pollfd *pfd, size_t n, control_fn fn, void *arg);
/* Whether a peer waits for the next batch. */
bool control_waiting(const struct control *c);
/* Whether a peer waits for a loop with nothing pending ("idle"). */
bool control_idle_waiting(const struct control *c);
/* Nothing is pending: answer the "idle" peers "ok nothing pending", or
 * "error ERROR" when what watch read cannot all be published now. */
void control_idle(struct control *c, const char *error);
/* A batch took every request queued so far: answer their waiting peers.
 * res NULL with error: the batch did not run or could not write the
 * tree. */
void control_batch_done(struct control *c, const struct crawl_result *res, const char *error);
/* Answer waiters that watch stops, close everything, remove the socket. */
void control_close(struct control *c);

#endif
