/* learned.c - 'snapshot --write-profile FILE' (learned.h). */
#include "snapshot/learned.h"

#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "base/buf.h"
#include "base/log.h"
#include "base/xalloc.h"
#include "tree/publish.h"

int learned_check(const char *path, char *err)
{
	struct stat st;
	if (lstat(path, &st) < 0) {
		if (errno == ENOENT)
			return 0;
		return err_set(err, "--write-profile '%s': %s", path, strerror(errno));
	}
	if (!S_ISREG(st.st_mode))
		return err_set(err, "--write-profile '%s' exists and is not a regular file: not overwritten", path);
	FILE *f = fopen(path, "r");
	if (!f)
		return err_set(err, "--write-profile '%s': %s", path, strerror(errno));
	char first[sizeof LEARNED_HEADER];
	bool ours = fgets(first, sizeof first, f) && !strcmp(first, LEARNED_HEADER);
	fclose(f);
	if (!ours)
		return err_set(err, "--write-profile '%s' exists and is not a profile cgisnap wrote: not overwritten",
			       path);
	return 0;
}

/* s as an option file's value: in single quotes, which keep every byte,
 * or where it holds one, in double quotes with \ and " escaped. */
static void add_value(struct buf *b, const char *s)
{
	if (!strchr(s, '\''))
		buf_addf(b, "'%s'", s);
	else
		buf_add_quoted(b, s);
}

/* Comment lines: a heading, then each item of list indented (at most
 * `most`, then how many more). */
static void add_comments(struct buf *b, const char *heading, const struct strlist *list, size_t most)
{
	if (!list->n)
		return;
	buf_addf(b, "\n%s", heading);
	for (size_t i = 0; i < list->n && i < most; i++)
		buf_addf(b, "#   %s\n", list->items[i]);
	if (list->n > most)
		buf_addf(b, "#   ... and %zu more\n", list->n - most);
}

static void format_profile(struct buf *b, const struct crawl_result *res, const char *site_url)
{
	char when[32];
	time_t now = time(NULL);
	strftime(when, sizeof when, "%Y-%m-%d %H:%M", localtime(&now));
	buf_addf(b, "%s\n", LEARNED_HEADER);
	buf_addf(b, "# What the crawl of %s learned by itself, %s: %ld URLs, %ld stored.\n", site_url, when,
		 res->pages, res->stored_new + res->stored_changed + res->stored_unchanged);
	buf_adds(b, "# Read back with 'cgisnap snapshot -c FILE ...': the next run starts from these\n"
		    "# decisions instead of learning them again (a repeatable option given on the\n"
		    "# command line replaces this file's list of it). Delete a line to have the\n"
		    "# crawl decide again; --write-profile replaces this file.\n");

	buf_adds(b, "\n# Views: URL families whose first pages all said robots noindex, none stored;\n"
		    "# the rest were not rendered. Read back, the first pages are rendered for their\n"
		    "# links, and the rest cut whatever those say.\n");
	if (!res->views_cut.n)
		buf_adds(b, "# (none)\n");
	for (size_t i = 0; i < res->views_cut.n; i++) {
		const char *line = res->views_cut.items[i];
		const char *tab = strchr(line, '\t');
		char *family = xstrndup(line, tab ? (size_t)(tab - line) : strlen(line));
		buf_adds(b, "view-family = ");
		add_value(b, family);
		long n = tab ? atol(tab + 1) : 0;
		buf_addf(b, "  # %ld URL%s not rendered\n", n, n == 1 ? "" : "s");
		free(family);
	}

	buf_adds(b, "\n# Spans that change on every render (request ids, render times, nonces): a\n"
		    "# page is compared without them, and stored with them.\n");
	if (!res->volatile_rules.n)
		buf_adds(b, "# (none)\n");
	for (size_t i = 0; i < res->volatile_rules.n; i++) {
		buf_adds(b, "volatile = ");
		add_value(b, res->volatile_rules.items[i]);
		buf_addc(b, '\n');
	}

	add_comments(b,
		     "# Aliases recorded as 301s: pages whose <link rel=canonical> names another\n"
		     "# page. Each says so again on every run; listed to be read.\n",
		     &res->canonical_links, 200);
	add_comments(b,
		     "# Spellings of one file, the second recorded as a 301 to the first:\n", &res->aliases, 200);
	if (res->family_notes.n) {
		buf_adds(b, "\n# Not applied by this run: the query parameters and URL families that\n"
			    "# multiplied URLs, and the options that would remove them (on the command\n"
			    "# line, or here as 'name = value' lines).\n");
		for (size_t i = 0; i < res->family_notes.n; i++)
			if (res->family_notes.items[i][0] == ' ') /* the heading is the summary's */
				buf_addf(b, "#%s\n", res->family_notes.items[i]);
	}
}

int learned_write(const char *path, const struct crawl_result *res, const char *site_url, char *err)
{
	struct buf text = BUF_INIT;
	format_profile(&text, res, site_url);
	char *dircopy = xstrdup(path), *basecopy = xstrdup(path);
	const char *dir = dirname(dircopy), *base = basename(basecopy);
	int rc = -1;
	int dirfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dirfd < 0) {
		err_set(err, "--write-profile '%s': %s: %s", path, dir, strerror(errno));
		goto out;
	}
	/* Checked again: the file may have appeared during the crawl. */
	if (learned_check(path, err) < 0)
		goto out;
	rc = write_file_atomic(dirfd, base, text.data, text.len, err);
	if (rc < 0) {
		char why[ERR_LEN];
		snprintf(why, sizeof why, "%s", err);
		err_set(err, "--write-profile '%s': %s", path, why);
	}
out:
	if (dirfd >= 0)
		close(dirfd);
	free(dircopy);
	free(basecopy);
	buf_release(&text);
	return rc;
}
