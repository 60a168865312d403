/* lastrun.c - DIR/.cgisnap/lastrun (lastrun.h). */
#include "crawl/lastrun.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/log.h"
#include "base/opts.h"
#include "tree/publish.h"
#include "base/xalloc.h"

void lastrun_from_result(struct lastrun *lr, const char *command, const struct crawl_result *res,
			 int exit_status)
{
	memset(lr, 0, sizeof *lr);
	lr->command = xstrdup(command);
	lr->started = (long)(time(NULL) - (time_t)res->seconds);
	lr->seconds = xasprintf("%.2f", res->seconds);
	lr->result = xstrdup(res->interrupted ? "interrupted"
			     : res->complete  ? "complete"
			     : res->errors.n  ? "failed"
					      : "partial");
	lr->exit_status = exit_status;
	lr->urls = res->pages;
	lr->stored_new = res->stored_new;
	lr->stored_changed = res->stored_changed;
	lr->stored_unchanged = res->stored_unchanged;
	lr->redirects = res->redirects;
	lr->not_found = res->not_found;
	lr->failed = res->failed;
	lr->held = res->held;
	lr->skipped = res->skipped;
	lr->removed = res->removed;
	for (size_t i = 0; i < res->nfailures && i < LASTRUN_MAX_LIST; i++)
		strlist_add_owned(&lr->failures,
				  xasprintf("%s: %s", res->failures[i].target, res->failures[i].reason));
	for (size_t i = 0; i < res->errors.n && i < LASTRUN_MAX_LIST; i++)
		strlist_add(&lr->errors, res->errors.items[i]);
}

/* A value on one line: a newline in a reason would start another. */
static void add_line(struct buf *b, const char *name, const char *value)
{
	buf_addf(b, "%s = ", name);
	for (const char *p = value; *p; p++)
		buf_addc(b, *p == '\n' || *p == '\r' ? ' ' : *p);
	buf_addc(b, '\n');
}

int lastrun_save(struct tree *t, const struct lastrun *lr, char *err)
{
	struct buf b = BUF_INIT;
	buf_adds(&b, "# written by cgisnap: the last run that wrote this tree ('cgisnap status' shows it)\n");
	add_line(&b, "command", lr->command);
	buf_addf(&b, "started = %ld\n", lr->started);
	add_line(&b, "seconds", lr->seconds);
	add_line(&b, "result", lr->result);
	buf_addf(&b, "exit-status = %ld\n", lr->exit_status);
	buf_addf(&b, "urls = %ld\nnew = %ld\nchanged = %ld\nunchanged = %ld\nredirects = %ld\n"
		 "not-found = %ld\nfailed = %ld\nheld = %ld\nskipped = %ld\nremoved = %ld\n",
		 lr->urls, lr->stored_new, lr->stored_changed, lr->stored_unchanged, lr->redirects,
		 lr->not_found, lr->failed, lr->held, lr->skipped, lr->removed);
	for (size_t i = 0; i < lr->failures.n; i++)
		add_line(&b, "failure", lr->failures.items[i]);
	for (size_t i = 0; i < lr->errors.n; i++)
		add_line(&b, "error", lr->errors.items[i]);
	int rc = write_file_atomic(t->meta_fd, LASTRUN_FILE, b.data, b.len, err);
	buf_release(&b);
	return rc;
}

int lastrun_load(struct tree *t, struct lastrun *lr, bool *found, char *err)
{
	memset(lr, 0, sizeof *lr);
	*found = false;
	if (t->meta_fd < 0 || faccessat(t->meta_fd, LASTRUN_FILE, F_OK, 0) < 0)
		return 0;
	const long big = 1L << 62;
	const struct opt table[] = {
		{ "command", 0, OPT_STR, &lr->command, NULL, NULL, 0, 0 },
		{ "started", 0, OPT_INT, &lr->started, NULL, NULL, 0, big },
		{ "seconds", 0, OPT_STR, &lr->seconds, NULL, NULL, 0, 0 },
		{ "result", 0, OPT_STR, &lr->result, NULL, NULL, 0, 0 },
		{ "exit-status", 0, OPT_INT, &lr->exit_status, NULL, NULL, 0, 255 },
		{ "urls", 0, OPT_INT, &lr->urls, NULL, NULL, 0, big },
		{ "new", 0, OPT_INT, &lr->stored_new, NULL, NULL, 0, big },
		{ "changed", 0, OPT_INT, &lr->stored_changed, NULL, NULL, 0, big },
		{ "unchanged", 0, OPT_INT, &lr->stored_unchanged, NULL, NULL, 0, big },
		{ "redirects", 0, OPT_INT, &lr->redirects, NULL, NULL, 0, big },
		{ "not-found", 0, OPT_INT, &lr->not_found, NULL, NULL, 0, big },
		{ "failed", 0, OPT_INT, &lr->failed, NULL, NULL, 0, big },
		{ "held", 0, OPT_INT, &lr->held, NULL, NULL, 0, big },
		{ "skipped", 0, OPT_INT, &lr->skipped, NULL, NULL, 0, big },
		{ "removed", 0, OPT_INT, &lr->removed, NULL, NULL, 0, big },
		{ "failure", 0, OPT_LIST, &lr->failures, NULL, NULL, 0, 0 },
		{ "error", 0, OPT_LIST, &lr->errors, NULL, NULL, 0, 0 },
		OPT_END
	};
	const struct opt *const tables[] = { table, NULL };
	char *path = xasprintf("%s/%s/%s", t->path, TREE_META_DIR, LASTRUN_FILE);
	int rc = opts_load_file(tables, path, err);
	free(path);
	if (rc < 0) {
		lastrun_release(lr);
		return -1;
	}
	*found = true;
	return 0;
}

void lastrun_release(struct lastrun *lr)
{
	free(lr->command);
	free(lr->seconds);
	free(lr->result);
	strlist_clear(&lr->failures);
	strlist_clear(&lr->errors);
	memset(lr, 0, sizeof *lr);
}
