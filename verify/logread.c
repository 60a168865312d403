/* verify/logread.c - access logs read into distinct GET/HEAD targets
 * (logread.h). */
#include "logread.h"

#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

#include "base/buf.h"
#include "base/log.h"
#include "base/xalloc.h"

void logread_init(struct logread *lr, const struct site *site)
{
	memset(lr, 0, sizeof *lr);
	lr->site = site;
}

void logread_release(struct logread *lr)
{
	for (size_t i = 0; i < lr->n; i++)
		free(lr->reqs[i].target);
	free(lr->reqs);
	hashmap_release(&lr->index);
	free(lr->first_malformed);
	memset(lr, 0, sizeof *lr);
}

static int hexval(int c)
{
	c = (unsigned char)c;
	return isdigit(c) ? c - '0' : isxdigit(c) ? tolower(c) - 'a' + 10 : -1;
}

/* The quoted field starting after p's '"', its escapes undone (Apache's
 * \" and \\, nginx's \xHH), into out; the byte after the closing quote,
 * or NULL when there is none. */
static const char *quoted_field(const char *p, struct buf *out)
{
	for (; *p && *p != '"'; p++) {
		if (*p == '\\' && p[1] == 'x' && hexval(p[2]) >= 0 && hexval(p[3]) >= 0) {
			buf_addc(out, (char)(hexval(p[2]) * 16 + hexval(p[3])));
			p += 3;
		} else if (*p == '\\' && p[1]) {
			buf_addc(out, *++p);
		} else {
			buf_addc(out, *p);
		}
	}
	return *p == '"' ? p + 1 : NULL;
}

int logread_parse_line(const char *line, char **method, char **target)
{
	*method = *target = NULL;
	/* The time is the first [...]; the request line the first quoted
	 * field after it. */
	const char *time_end = strchr(line, '[') ? strchr(strchr(line, '['), ']') : NULL;
	const char *q = time_end ? strchr(time_end, '"') : NULL;
	if (!q)
		return -1;
	struct buf req = BUF_INIT;
	const char *after = quoted_field(q + 1, &req);
	int rc = -1;
	/* A status follows: three digits. */
	if (!after || *after != ' ' || !isdigit((unsigned char)after[1]) || !isdigit((unsigned char)after[2]) ||
	    !isdigit((unsigned char)after[3]))
		goto out;
	const char *s = buf_str(&req);
	const char *sp = strchr(s, ' ');
	if (!sp || sp == s)
		goto out;
	const char *t = sp + 1;
	const char *tend = strchr(t, ' ');
	size_t tlen = tend ? (size_t)(tend - t) : strlen(t);
	if (!tlen)
		goto out;
	*method = xstrndup(s, (size_t)(sp - s));
	*target = xstrndup(t, tlen);
	rc = 0;
out:
	buf_release(&req);
	return rc;
}

static void note_malformed(struct logread *lr, const char *path, long long lineno)
{
	lr->malformed++;
	if (!lr->first_malformed)
		lr->first_malformed = xasprintf("%s:%lld", path, lineno);
}

/* A GET or HEAD request for raw (as logged): counted under its
 * normalised target, or as outside the site or malformed. */
static void note_request(struct logread *lr, const char *raw, const char *path, long long lineno)
{
	char *abs = NULL, *target = NULL;
	if (raw[0] == '/') {
		char *joined = xasprintf("%s%s", lr->site->origin, raw);
		abs = url_normalize(joined);
		free(joined);
	} else if (!strncasecmp(raw, "http://", 7) || !strncasecmp(raw, "https://", 8)) {
		abs = url_normalize(raw);
	}
	if (!abs) {
		note_malformed(lr, path, lineno);
		return;
	}
	target = site_target(lr->site, abs);
	free(abs);
	if (!target) {
		lr->outside++;
		return;
	}
	lr->requests++;
	void *at = hashmap_get(&lr->index, target);
	if (at) {
		lr->reqs[(size_t)(intptr_t)at - 1].requests++;
		free(target);
		return;
	}
	if (lr->n == lr->cap) {
		lr->cap = lr->cap ? lr->cap * 2 : 64;
		lr->reqs = xrealloc(lr->reqs, lr->cap * sizeof *lr->reqs);
	}
	lr->reqs[lr->n].target = target;
	lr->reqs[lr->n].requests = 1;
	lr->n++;
	hashmap_put(&lr->index, target, (void *)(intptr_t)lr->n);
}

int logread_file(struct logread *lr, const char *path, char *err)
{
	bool in = !strcmp(path, "-");
	int fd = in ? dup(0) : -1;
	gzFile gz = in ? (fd >= 0 ? gzdopen(fd, "rb") : NULL) : gzopen(path, "rb");
	const char *name = in ? "standard input" : path;
	if (!gz) {
		int e = errno ? errno : ENOMEM;
		if (fd >= 0)
			close(fd);
		return err_set(err, "cannot read log '%s': %s", name, strerror(e));
	}
	gzbuffer(gz, 128 * 1024);
	char *line = xmalloc(LOGREAD_LINE_MAX);
	long long lineno = 0;
	bool overlong = false;
	int rc = 0;
	for (;;) {
		z_off_t before = gztell(gz);
		if (!gzgets(gz, line, LOGREAD_LINE_MAX))
			break;
		/* gzgets copies NUL bytes too: what it read is what the
		 * stream moved by. */
		size_t len = (size_t)(gztell(gz) - before);
		bool whole = len && line[len - 1] == '\n';
		if (overlong) { /* the rest of a line too long to read */
			overlong = !whole;
			continue;
		}
		lineno++;
		lr->lines++;
		if (!whole && !gzeof(gz)) {
			overlong = true;
			note_malformed(lr, name, lineno);
			continue;
		}
		if (memchr(line, '\0', len)) { /* a damaged log's run of NULs */
			note_malformed(lr, name, lineno);
			continue;
		}
		while (len && (line[len - 1] == '\n' || line[len - 1] == '\r'))
			line[--len] = '\0';
		if (!len) {
			lr->lines--;
			continue;
		}
		char *method, *target;
		if (logread_parse_line(line, &method, &target) < 0) {
			note_malformed(lr, name, lineno);
			continue;
		}
		if (!strcmp(method, "GET") || !strcmp(method, "HEAD"))
			note_request(lr, target, name, lineno);
		else
			lr->other_methods++;
		free(method);
		free(target);
	}
	int gzerr;
	const char *why = gzerror(gz, &gzerr);
	if (gzerr == Z_BUF_ERROR) /* a rotation compressed while it was written, cut short */
		log_warn("log '%s' ends in the middle of its gzip stream: read up to there", name);
	else if (gzerr != Z_OK)
		rc = err_set(err, "cannot read log '%s': %s", name,
			     gzerr == Z_ERRNO ? strerror(errno) : why);
	gzclose(gz);
	free(line);
	return rc;
}

static int by_requests(const void *a, const void *b)
{
	const struct logreq *x = a, *y = b;
	if (x->requests != y->requests)
		return x->requests > y->requests ? -1 : 1;
	return strcmp(x->target, y->target);
}

long long logread_keep_most(struct logread *lr, size_t n)
{
	long long dropped = 0;
	if (n >= lr->n)
		return 0;
	qsort(lr->reqs, lr->n, sizeof *lr->reqs, by_requests);
	hashmap_release(&lr->index);
	for (size_t i = n; i < lr->n; i++) {
		dropped += lr->reqs[i].requests;
		free(lr->reqs[i].target);
	}
	lr->n = n;
	for (size_t i = 0; i < lr->n; i++)
		hashmap_put(&lr->index, lr->reqs[i].target, (void *)(intptr_t)(i + 1));
	return dropped;
}
