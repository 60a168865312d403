/* manifest.c - the manifest's entries in memory and its text format: the
 * lines cgisnap ls prints and old trees' manifest, deps and journal files. */
#include "tree/manifest.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/log.h"
#include "base/opts.h"
#include "tree/publish.h"
#include "url/urlkey.h"
#include "base/xalloc.h"

#define MANIFEST_HEADER "# target\tkey\tstatus\ttype\tbytes\tsha256\trender_ms\tchanged\tlocation\n"
#define MANIFEST_DEPS_HEADER "# target\tR (read), E (exists?), L (listed), C (all files read) or U (untraced)\tpath\n"

struct manifest_entry *manifest_entry_new(const char *target)
{
	struct manifest_entry *e = xcalloc(1, sizeof *e);
	e->target = xstrdup(target);
	return e;
}

void manifest_entry_free(struct manifest_entry *e)
{
	if (!e)
		return;
	free(e->target);
	free(e->key);
	free(e->content_type);
	free(e->location);
	strlist_clear(&e->deps_read);
	strlist_clear(&e->deps_exist);
	strlist_clear(&e->deps_listed);
	strlist_clear(&e->deps_contents);
	strlist_clear(&e->deps_untraced);
	strlist_clear(&e->deps_absent);
	strlist_clear(&e->deps_wrote);
	free(e);
}

struct manifest_entry *manifest_entry_dup(const struct manifest_entry *e)
{
	struct manifest_entry *n = manifest_entry_new(e->target);
	n->key = e->key ? xstrdup(e->key) : NULL;
	n->status = e->status;
	n->content_type = e->content_type ? xstrdup(e->content_type) : NULL;
	n->bytes = e->bytes;
	memcpy(n->sha256, e->sha256, sizeof n->sha256);
	n->render_ms = e->render_ms;
	n->changed = e->changed;
	n->location = e->location ? xstrdup(e->location) : NULL;
	for (const char *k = MANIFEST_DEP_KINDS; *k; k++) {
		const struct strlist *from = manifest_deps((struct manifest_entry *)e, *k);
		for (size_t i = 0; i < from->n; i++)
			strlist_add(manifest_deps(n, *k), from->items[i]);
	}
	return n;
}

struct strlist *manifest_deps(struct manifest_entry *e, char kind)
{
	switch (kind) {
	case 'R': return &e->deps_read;
	case 'E': return &e->deps_exist;
	case 'L': return &e->deps_listed;
	case 'U': return &e->deps_untraced;
	case 'A': return &e->deps_absent;
	case 'W': return &e->deps_wrote;
	default: return &e->deps_contents;
	}
}

size_t manifest_deps_count(const struct manifest_entry *e)
{
	return e->deps_read.n + e->deps_exist.n + e->deps_listed.n + e->deps_contents.n + e->deps_untraced.n +
	       e->deps_absent.n + e->deps_wrote.n;
}

struct manifest_entry *manifest_get(const struct manifest *m, const char *target)
{
	return hashmap_get(&m->entries, target);
}

void manifest_put(struct manifest *m, struct manifest_entry *e)
{
	manifest_entry_free(hashmap_put(&m->entries, e->target, e));
}

void manifest_remove(struct manifest *m, const char *target)
{
	manifest_entry_free(hashmap_remove(&m->entries, target));
}

size_t manifest_count(const struct manifest *m)
{
	return m->entries.count;
}

static int by_target(const void *a, const void *b)
{
	return strcmp((*(struct manifest_entry *const *)a)->target,
		      (*(struct manifest_entry *const *)b)->target);
}

struct manifest_entry **manifest_sorted(const struct manifest *m, size_t *n)
{
	struct manifest_entry **v = xmalloc((m->entries.count + 1) * sizeof *v);
	size_t i = 0, it = 0;
	const char *k;
	void *val;
	while (hashmap_next(&m->entries, &it, &k, &val))
		v[i++] = val;
	qsort(v, i, sizeof *v, by_target);
	*n = i;
	return v;
}

void manifest_clear(struct manifest *m)
{
	size_t it = 0;
	void *val;
	while (hashmap_next(&m->entries, &it, NULL, &val))
		manifest_entry_free(val);
	hashmap_release(&m->entries);
}

void manifest_release(struct manifest *m)
{
	manifest_clear(m);
	if (m->lazy)
		manifest_set_lazy(m, NULL);
}

/* Split line at tabs into at most max fields; returns the count. */
static size_t split_tabs(char *line, char **fields, size_t max)
{
	size_t n = 0;
	fields[n++] = line;
	for (char *p = line; *p && n < max; p++) {
		if (*p == '\t') {
			*p = '\0';
			fields[n++] = p + 1;
		}
	}
	return n;
}

static char *field_or_null(const char *s)
{
	return strcmp(s, "-") ? xstrdup(s) : NULL;
}

int manifest_parse_entry(char *line, struct manifest_entry **out)
{
	char *f[10];
	if (split_tabs(line, f, 10) != 9)
		return -1;
	long status, render_ms, changed;
	long long bytes;
	char *end;
	if (parse_long(f[2], 0, 999, &status) < 0 || parse_long(f[6], -1, 1L << 40, &render_ms) < 0 ||
	    parse_long(f[7], 0, 1L << 62, &changed) < 0)
		return -1;
	errno = 0;
	bytes = strtoll(f[4], &end, 10);
	if (*end || errno || bytes < 0)
		return -1;
	if (strcmp(f[5], "-") && strlen(f[5]) != 64)
		return -1;
	struct manifest_entry *e = manifest_entry_new(f[0]);
	e->key = field_or_null(f[1]);
	e->status = (int)status;
	e->content_type = field_or_null(f[3]);
	e->bytes = bytes;
	snprintf(e->sha256, sizeof e->sha256, "%s", strcmp(f[5], "-") ? f[5] : "");
	e->render_ms = render_ms;
	e->changed = (time_t)changed;
	e->location = field_or_null(f[8]);
	*out = e;
	return 0;
}

/* Open name under .cgisnap/ for reading; NULL with errno ENOENT when absent. */
static FILE *open_meta(struct tree *t, const char *name)
{
	if (t->meta_fd < 0) {
		errno = ENOENT;
		return NULL;
	}
	int fd = openat(t->meta_fd, name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return NULL;
	FILE *f = fdopen(fd, "r");
	if (!f)
		close(fd);
	return f;
}

/* Call fn for each line of .cgisnap/NAME but blank ones and comments, the
 * newline cut off, until fn returns -1: 0 (also when the file is absent),
 * or -1 with err set by fn or naming the file that could not be read. */
static int each_line(struct tree *t, const char *name, int (*fn)(char *line, int lineno, void *arg, char *err),
		     void *arg, char *err)
{
	FILE *f = open_meta(t, name);
	if (!f)
		return errno == ENOENT ? 0 : err_sys(err, "cannot read '%s/%s/%s'", t->path, TREE_META_DIR, name);
	char *line = NULL;
	size_t cap = 0;
	ssize_t len;
	int lineno = 0, rc = 0;
	while (rc == 0 && (len = getline(&line, &cap, f)) >= 0) {
		lineno++;
		if (len && line[len - 1] == '\n')
			line[--len] = '\0';
		if (!*line || *line == '#')
			continue;
		rc = fn(line, lineno, arg, err);
	}
	if (rc == 0 && ferror(f))
		rc = err_sys(err, "cannot read '%s/%s/%s'", t->path, TREE_META_DIR, name);
	free(line);
	fclose(f);
	return rc;
}

struct load {
	struct manifest *m;
	struct tree *t;
};

static int deps_line(char *line, int lineno, void *arg, char *err)
{
	struct load *l = arg;
	char *fields[4];
	if (split_tabs(line, fields, 4) != 3 || strlen(fields[1]) != 1 || !strchr(MANIFEST_DEP_KINDS, fields[1][0]))
		return err_set(err, "%s/%s/%s:%d: malformed line", l->t->path, TREE_META_DIR, MANIFEST_DEPS_FILE, lineno);
	struct manifest_entry *e = manifest_get(l->m, fields[0]);
	if (e) /* else a page no longer in the manifest */
		strlist_add(manifest_deps(e, fields[1][0]), fields[2]);
	return 0;
}

static int manifest_line(char *line, int lineno, void *arg, char *err)
{
	struct load *l = arg;
	struct manifest_entry *e;
	if (manifest_parse_entry(line, &e) < 0)
		return err_set(err, "%s/%s/%s:%d: malformed line", l->t->path, TREE_META_DIR, MANIFEST_TEXT_FILE,
			       lineno);
	manifest_put(l->m, e);
	return 0;
}

static int journal_line(char *line, int lineno, void *arg, char *err)
{
	(void)lineno, (void)err;
	strlist_add(arg, line);
	return 0;
}

int manifest_load_text(struct manifest *m, struct strlist *journal, struct tree *t, char *err)
{
	struct load l = { m, t };
	if (each_line(t, MANIFEST_TEXT_FILE, manifest_line, &l, err) < 0 ||
	    each_line(t, MANIFEST_DEPS_FILE, deps_line, &l, err) < 0)
		return -1;
	return each_line(t, MANIFEST_JOURNAL_FILE, journal_line, journal, err);
}

int manifest_write_text(const struct manifest *m, bool deps, FILE *f)
{
	size_t n;
	struct manifest_entry **v = manifest_sorted(m, &n);
	struct buf out = BUF_INIT;
	buf_adds(&out, deps ? MANIFEST_DEPS_HEADER : MANIFEST_HEADER);
	for (size_t i = 0; i < n; i++) {
		struct manifest_entry *e = v[i];
		if (!deps) {
			manifest_format_entry(&out, e);
			buf_addc(&out, '\n');
		} else {
			for (const char *k = MANIFEST_DEP_KINDS; *k; k++) {
				const struct strlist *l = manifest_deps(e, *k);
				for (size_t j = 0; j < l->n; j++)
					buf_addf(&out, "%s\t%c\t%s\n", e->target, *k, l->items[j]);
			}
		}
		/* Written as it goes: a large tree needs no second copy. */
		if (out.len >= 65536 || i + 1 == n) {
			fwrite(out.data, 1, out.len, f);
			buf_reset(&out);
		}
	}
	if (out.len)
		fwrite(out.data, 1, out.len, f);
	free(v);
	buf_release(&out);
	return fflush(f) == 0 && !ferror(f) ? 0 : -1;
}

static const char *or_dash(const char *s)
{
	return s && *s ? s : "-";
}

void manifest_format_entry(struct buf *out, const struct manifest_entry *e)
{
	buf_addf(out, "%s\t%s\t%d\t%s\t%lld\t%s\t%ld\t%lld\t%s", e->target, or_dash(e->key), e->status,
		 or_dash(e->content_type), e->bytes, or_dash(e->sha256), e->render_ms, (long long)e->changed,
		 or_dash(e->location));
}

