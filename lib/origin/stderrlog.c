/* stderrlog.c - a program's stderr logged a line at a time (stderrlog.h),
 * for the CGI and FastCGI back ends. */
#include "origin/stderrlog.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "base/log.h"
#include "base/xalloc.h"

/* The error log, when open (stderrlog.h). */
static pthread_mutex_t errlog_lock = PTHREAD_MUTEX_INITIALIZER;
static int errlog_fd = -1;
static int errlog_dirfd = -1;       /* where it is (a copy of the caller's) */
static char *errlog_name;
static long long errlog_size;       /* its bytes, as far as we wrote them */
static long errlog_lines;           /* since the last take */
static struct strlist errlog_first; /* the first of them */
#define ERRLOG_FIRST_KEPT 8

void origin_log_init(struct origin_log *l, const char *target)
{
	l->target = target;
	buf_init(&l->line);
	l->cut = false;
}

/* Open the error log, renamed NAME.1 first when over ORIGIN_ERRLOG_MAX
 * bytes (or always, with force). Locked. */
static int errlog_reopen_locked(bool force, char *err)
{
	struct stat st;
	if (fstatat(errlog_dirfd, errlog_name, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISREG(st.st_mode) &&
	    (force || st.st_size > ORIGIN_ERRLOG_MAX)) {
		char *old = xasprintf("%s.1", errlog_name);
		if (renameat(errlog_dirfd, errlog_name, errlog_dirfd, old) < 0)
			log_warn("cannot rename the error log '%s': %s", errlog_name, strerror(errno));
		free(old);
	}
	int fd = openat(errlog_dirfd, errlog_name, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0644);
	if (fd < 0)
		return err_sys(err, "cannot open the error log '%s'", errlog_name);
	if (errlog_fd >= 0)
		close(errlog_fd);
	errlog_fd = fd;
	errlog_size = fstat(fd, &st) == 0 ? st.st_size : 0;
	return 0;
}

/* One line into the error log; false when none is open. A log that
 * passes ORIGIN_ERRLOG_MAX is turned over there and then: a watch that
 * runs for months with a warning in every render must not fill the disk. */
static bool errlog_line(const char *target, const char *line, bool cut)
{
	pthread_mutex_lock(&errlog_lock);
	bool open = errlog_fd >= 0;
	if (open) {
		char when[32];
		time_t now = time(NULL);
		struct tm tm;
		strftime(when, sizeof when, "%Y-%m-%dT%H:%M:%SZ", gmtime_r(&now, &tm));
		char *text = xasprintf("%s %s: %s%s\n", when, target, line, cut ? "..." : "");
		/* O_APPEND: one write per line keeps lines whole. A full disk
		 * loses the line, not the render. */
		size_t len = strlen(text);
		if (write(errlog_fd, text, len) < 0)
			log_debug("cannot write the error log: %s", strerror(errno));
		free(text);
		errlog_size += (long long)len;
		char why[ERR_LEN];
		if (errlog_size > ORIGIN_ERRLOG_MAX && errlog_reopen_locked(true, why) < 0)
			log_debug("%s", why);
		if (errlog_first.n < ERRLOG_FIRST_KEPT)
			strlist_add_owned(&errlog_first, xasprintf("%s: %s%s", target, line, cut ? "..." : ""));
		errlog_lines++;
	}
	pthread_mutex_unlock(&errlog_lock);
	return open;
}

static void log_line_end(struct origin_log *l)
{
	buf_truncate(&l->line, l->line.len - (l->line.len && l->line.data[l->line.len - 1] == '\r'));
	if ((l->line.len || l->cut) && (!errlog_line(l->target, buf_str(&l->line), l->cut) || log_verbose()))
		log_raw("cgisnap: %s: %s%s", l->target, buf_str(&l->line), l->cut ? "..." : "");
	buf_reset(&l->line);
	l->cut = false;
}

void origin_log_feed(struct origin_log *l, const char *data, size_t n)
{
	while (n) {
		const char *nl = memchr(data, '\n', n);
		size_t chunk = nl ? (size_t)(nl - data) : n;
		size_t room = ORIGIN_LOG_LINE_MAX - l->line.len;
		if (chunk > room)
			l->cut = true;
		buf_add(&l->line, data, chunk < room ? chunk : room);
		if (!nl)
			return;
		log_line_end(l);
		data += chunk + 1;
		n -= chunk + 1;
	}
}

void origin_log_flush(struct origin_log *l)
{
	if (l->line.len || l->cut)
		log_line_end(l);
	buf_release(&l->line);
}

int origin_errlog_open(int dirfd, const char *name, char *err)
{
	pthread_mutex_lock(&errlog_lock);
	if (errlog_dirfd >= 0)
		close(errlog_dirfd);
	free(errlog_name);
	errlog_name = xstrdup(name);
	errlog_dirfd = fcntl(dirfd, F_DUPFD_CLOEXEC, 0);
	int rc = errlog_dirfd < 0 ? err_sys(err, "cannot open the error log '%s'", name)
				  : errlog_reopen_locked(false, err);
	pthread_mutex_unlock(&errlog_lock);
	return rc;
}

long origin_errlog_take(struct strlist *first, size_t max)
{
	pthread_mutex_lock(&errlog_lock);
	long n = errlog_lines;
	for (size_t i = 0; i < errlog_first.n && i < max; i++)
		strlist_add(first, errlog_first.items[i]);
	errlog_lines = 0;
	strlist_clear(&errlog_first);
	pthread_mutex_unlock(&errlog_lock);
	return n;
}

void origin_errlog_close(void)
{
	pthread_mutex_lock(&errlog_lock);
	if (errlog_fd >= 0)
		close(errlog_fd);
	if (errlog_dirfd >= 0)
		close(errlog_dirfd);
	errlog_fd = errlog_dirfd = -1;
	free(errlog_name);
	errlog_name = NULL;
	errlog_lines = 0;
	strlist_clear(&errlog_first);
	pthread_mutex_unlock(&errlog_lock);
}
