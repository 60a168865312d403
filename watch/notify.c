/* notify.c - 'cgisnap notify': tell a running watch that pages or files
 * changed where inotify cannot see, through DIR/.cgisnap/control
 * (control.h), and optionally wait until they are published. For a
 * CMS's save hook, a git post-receive hook, a cron job. */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "base/buf.h"
#include "base/clock.h"
#include "commands.h"
#include "control.h"
#include "base/log.h"
#include "base/opts.h"
#include "tree/tree.h"
#include "base/xalloc.h"

#define DEFAULT_TIMEOUT_S 300

static struct {
	struct strlist paths;
	bool wait, idle, quiet;
	long timeout_s;
} notify_options = { STRLIST_INIT, false, false, false, -1 };

static const struct opt notify_opts[] = {
	{ "path", 0, OPT_LIST, &notify_options.paths, "PATH",
	  "a file that changed: the pages that read it, and the --depends rules matching it, re-render (repeatable)",
	  0, 0 },
	{ "wait", 0, OPT_BOOL, &notify_options.wait, NULL,
	  "wait until the batch with these is published; print the files it wrote or removed on stdout", 0, 0 },
	{ "idle", 0, OPT_BOOL, &notify_options.idle, NULL,
	  "name nothing; wait until the watch has nothing pending: every change it has read so far rendered and "
	  "published (a page held as its source was written, retried too)",
	  0, 0 },
	{ "timeout", 0, OPT_INT, &notify_options.timeout_s, "S",
	  "give up after S seconds without the answer (default 300; 0: never)", 0, 86400 },
	{ "quiet", 'q', OPT_BOOL, &notify_options.quiet, NULL, "print only errors", 0, 0 },
	OPT_END
};

static void print_help(const struct opt *const *tables)
{
	printf("usage: cgisnap notify [OPTIONS] DIR [URL...] [--path PATH...]\n"
	       "       cgisnap notify --idle DIR\n\n"
	       "Tell the 'cgisnap watch' keeping DIR fresh that pages changed where it\n"
	       "cannot see: a row of a database, content behind an HTTP origin. Each URL\n"
	       "re-renders at once (with the normal debounce), with the --always pages and\n"
	       "the --depends rules whose REGEX matches its target; each --path re-renders\n"
	       "what a change of that file would (the pages whose traced dependencies name\n"
	       "it, the --depends rules matching it, the --always pages). Only files whose\n"
	       "bytes changed are written. A URL is a target of the site ('/post?id=3') or\n"
	       "an absolute URL of it; anything else is refused, so a file is never taken\n"
	       "for a URL: files are named with --path.\n\n"
	       "It talks to watch over the unix socket DIR/.cgisnap/control (mode 0600;\n"
	       "watch hears only its own user and root): lines 'url TARGET', 'path PATH',\n"
	       "'wait', then an empty line; the answer 'ok ...' or 'error ...', and with\n"
	       "'wait' lines 'changed KEY', 'failed TARGET<TAB>REASON', then 'done ...'.\n"
	       "--idle sends 'idle' alone, answered 'ok nothing pending' once every change\n"
	       "watch has read (the events queued when it asked included) is published:\n"
	       "a script that changed files waits for them with it.\n"
	       "watch reads requests between batches: the answer may wait for the one in\n"
	       "progress.\n\n"
	       "Examples:\n"
	       "  cgisnap notify /srv/blog '/?p=42'                   # a CMS save hook\n"
	       "  cgisnap notify --wait /srv/blog /2026/03/slug/ /    # wait for the files\n"
	       "  cgisnap notify /srv/wiki --path /var/www/wiki/data/pages/start.txt\n"
	       "  cgisnap notify /srv/site / /news/                   # a git post-receive hook\n"
	       "  cgisnap notify --idle /srv/site                     # after a deploy: wait\n\n"
	       "Options:\n");
	opts_print_help(stdout, tables);
	opts_print_common(stdout, tables, OPTS_CONFIG_FILE);
	printf("\nExit status: 0 queued (with --wait: published; with --idle: all\n"
	       "published); 1 not delivered or not published: no watch runs on DIR, watch\n"
	       "refused the request (another user, a URL of another site), a notified URL\n"
	       "failed, a source is missing or a batch could not write the tree (--idle),\n"
	       "watch stopped, or the timeout passed; 2 usage error (a bad option or item,\n"
	       "DIR not a tree).\n");
}

/* A URL item is a target or an absolute http(s) URL, one line of text. */
static bool looks_like_url(const char *s)
{
	if (s[0] != '/' && strncasecmp(s, "http://", 7) && strncasecmp(s, "https://", 8))
		return false;
	for (const char *p = s; *p; p++)
		if ((unsigned char)*p < 0x20 || *p == 0x7f || *p == ' ')
			return false;
	return s[0] != '/' || s[1] != '/'; /* "//host/x" is a URL of some host */
}

/* The request's text; EXIT_USAGE with err on a bad item. */
static int build_request(const struct strlist *urls, struct buf *rq, char *err)
{
	for (size_t i = 0; i < urls->n; i++) {
		if (!looks_like_url(urls->items[i]))
			return err_set(err, "'%s' is not a URL of the site: give a target starting with '/' or an "
					    "absolute http(s) URL, and files with --path", urls->items[i]),
			       EXIT_USAGE;
		buf_addf(rq, "url %s\n", urls->items[i]);
	}
	for (size_t i = 0; i < notify_options.paths.n; i++) {
		const char *p = notify_options.paths.items[i];
		if (!*p || strchr(p, '\n'))
			return err_set(err, "bad --path '%s': a path is one line of text", p), EXIT_USAGE;
		/* watch sees real paths (inotify, the tracer): symbolic links
		 * resolved, even for a file that is gone now. */
		char *real = tree_real_path(p);
		if (!real)
			return err_sys(err, "cannot resolve --path '%s'", p), EXIT_USAGE;
		buf_addf(rq, "path %s\n", real);
		free(real);
	}
	if (notify_options.wait)
		buf_adds(rq, "wait\n");
	if (notify_options.idle)
		buf_adds(rq, "idle\n");
	buf_adds(rq, "\n");
	return 0;
}

/* Connect to DIR's watch; the socket, or -1 with err and *status. */
static int connect_watch(const char *dir, int *status, char *err)
{
	int treefd = -1, metafd = -1, fd = -1;
	struct stat st;
	*status = EXIT_USAGE;
	treefd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (treefd < 0) {
		err_sys(err, "cannot open tree '%s'", dir);
		goto fail;
	}
	metafd = openat(treefd, TREE_META_DIR, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (metafd < 0 && errno == ENOENT) {
		err_set(err, "'%s' is not a cgisnap tree (no %s/)", dir, TREE_META_DIR);
		goto fail;
	}
	*status = EXIT_PARTIAL;
	if (metafd < 0) {
		err_sys(err, "cannot open '%s/%s'", dir, TREE_META_DIR);
		goto fail;
	}
	if (fstatat(metafd, CONTROL_NAME, &st, AT_SYMLINK_NOFOLLOW) < 0) {
		if (errno == ENOENT)
			err_set(err, "no watch is running on '%s' (no %s/%s)", dir, TREE_META_DIR, CONTROL_NAME);
		else
			err_sys(err, "cannot reach the watch on '%s'", dir);
		goto fail;
	}
	if (!S_ISSOCK(st.st_mode)) {
		err_set(err, "'%s/%s/%s' is not a socket: no watch is running on '%s'", dir, TREE_META_DIR,
			CONTROL_NAME, dir);
		goto fail;
	}
	char *meta = xasprintf("%s/%s", dir, TREE_META_DIR);
	struct sockaddr_un sa;
	socklen_t salen;
	control_address(metafd, meta, &sa, &salen);
	free(meta);
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0) {
		err_sys(err, "cannot make a socket");
		goto fail;
	}
	if (connect(fd, (struct sockaddr *)&sa, salen) < 0) {
		if (errno == ECONNREFUSED)
			err_set(err, "no watch is running on '%s' (%s/%s was left by one that was killed)", dir,
				TREE_META_DIR, CONTROL_NAME);
		else if (errno == EACCES || errno == EPERM)
			err_set(err, "cannot notify the watch on '%s': permission denied (only its user and root may)",
				dir);
		else
			err_sys(err, "cannot reach the watch on '%s'", dir);
		close(fd);
		fd = -1;
	}
fail:
	if (metafd >= 0)
		close(metafd);
	if (treefd >= 0)
		close(treefd);
	return fd;
}

/* Send all of rq; -1 with err. */
static int send_all(int fd, const struct buf *rq, char *err)
{
	size_t off = 0;
	while (off < rq->len) {
		ssize_t w = send(fd, rq->data + off, rq->len - off, MSG_NOSIGNAL);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return err_sys(err, "cannot talk to the watch");
		off += (size_t)w;
	}
	return 0;
}

/* Whether the watch has said something already. */
static bool answer_waiting(int fd)
{
	struct pollfd pfd = { fd, POLLIN, 0 };
	char c;
	return poll(&pfd, 1, 0) > 0 && recv(fd, &c, 1, MSG_PEEK | MSG_DONTWAIT) == 1;
}

/* The next answer line (fresh string, no newline), NULL at the end of
 * the connection or when the deadline passed (*timed_out). */
static char *read_line(int fd, struct buf *in, long long deadline, bool *timed_out)
{
	for (;;) {
		char *nl = in->len ? memchr(in->data, '\n', in->len) : NULL;
		if (nl) {
			size_t n = (size_t)(nl - in->data);
			char *line = xstrndup(in->data, n);
			memmove(in->data, nl + 1, in->len - n - 1);
			in->len -= n + 1;
			return line;
		}
		int timeout = -1;
		if (deadline) {
			long long left = deadline - now_ms();
			if (left <= 0) {
				*timed_out = true;
				return NULL;
			}
			timeout = left > 1000000000 ? 1000000000 : (int)left;
		}
		struct pollfd pfd = { fd, POLLIN, 0 };
		int r = poll(&pfd, 1, timeout);
		if (r < 0 && errno == EINTR)
			continue;
		if (r == 0)
			continue; /* the deadline is checked above */
		char chunk[4096];
		ssize_t got = r < 0 ? -1 : read(fd, chunk, sizeof chunk);
		if (got < 0 && errno == EINTR)
			continue;
		if (got <= 0)
			return NULL;
		buf_add(in, chunk, (size_t)got);
	}
}

/* Read the answers and say what they mean; the exit status. */
static int take_answers(int fd, const char *dir)
{
	struct buf in = BUF_INIT;
	long t = notify_options.timeout_s >= 0 ? notify_options.timeout_s : DEFAULT_TIMEOUT_S;
	long long deadline = t ? now_ms() + t * 1000LL : 0;
	bool timed_out = false, queued = false;
	int status = EXIT_PARTIAL;
	char *line;
	while ((line = read_line(fd, &in, deadline, &timed_out))) {
		if (!strncmp(line, "error ", 6)) {
			log_error("%s", line + 6);
			free(line);
			goto out;
		}
		if (!strncmp(line, "ok ", 3) && !queued) {
			queued = true;
			if (!notify_options.wait) {
				if (!notify_options.quiet)
					log_info("%s: %s", notify_options.idle ? "idle" : "notified", line + 3);
				status = 0;
				free(line);
				goto out;
			}
		} else if (!strncmp(line, "changed ", 8)) {
			printf("%s\n", line + 8);
		} else if (!strncmp(line, "failed ", 7)) {
			char *tab = strchr(line + 7, '\t');
			if (tab)
				*tab = '\0';
			log_warn("failed: %s: %s", line + 7, tab ? tab + 1 : "(no reason given)");
		} else if (!strncmp(line, "done ", 5)) {
			if (!notify_options.quiet)
				log_info("published: %s", line + 5);
			status = 0;
			free(line);
			goto out;
		}
		free(line);
	}
	if (timed_out && notify_options.idle)
		log_error("the watch on '%s' still had changes pending after %ld s", dir, t);
	else if (timed_out)
		log_error("no answer from the watch on '%s' within %ld s%s", dir, t,
			  queued ? " (the request is queued)" : "");
	else
		log_error("the watch on '%s' went away before it answered", dir);
out:
	fflush(stdout);
	buf_release(&in);
	return status;
}

int cmd_notify(int argc, char **argv)
{
	const struct opt *const tables[] = { notify_opts, NULL };
	struct strlist args = STRLIST_INIT, urls = STRLIST_INIT;
	struct buf rq = BUF_INIT;
	char err[ERR_LEN];
	int fd = -1;
	int rc = opts_parse(tables, argc, argv, OPTS_CONFIG_FILE, &args, err);

	rc = cli_parsed("notify", rc, err, print_help, tables);
	if (rc != CLI_GO_ON)
		goto out;
	if (args.n == 0) {
		rc = usage_error("notify", "no tree given: which DIR does the watch keep fresh?");
		goto out;
	}
	for (size_t i = 1; i < args.n; i++)
		strlist_add(&urls, args.items[i]);
	if (notify_options.idle && (urls.n || notify_options.paths.n || notify_options.wait)) {
		rc = usage_error("notify", "--idle goes alone: no URL, --path or --wait with it");
		goto out;
	}
	if (!urls.n && !notify_options.paths.n && !notify_options.idle) {
		rc = usage_error("notify", "nothing to notify: give URLs, or files with --path (or --idle)");
		goto out;
	}
	if ((rc = build_request(&urls, &rq, err)) != 0) {
		rc = usage_error("notify", err);
		goto out;
	}
	fd = connect_watch(args.items[0], &rc, err);
	if (fd < 0) {
		log_error("%s", err);
		goto out;
	}
	/* A watch that refuses at once (another user) may close before the
	 * request is sent: its answer is still there to read. */
	if (send_all(fd, &rq, err) < 0 && !answer_waiting(fd)) {
		log_error("%s", err);
		rc = EXIT_PARTIAL;
		goto out;
	}
	rc = take_answers(fd, args.items[0]);
out:
	if (fd >= 0)
		close(fd);
	buf_release(&rq);
	strlist_clear(&urls);
	strlist_clear(&args);
	opts_release(tables);
	return rc;
}
