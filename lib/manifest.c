/* manifest.c - reading and writing DIR/.cgisnap/manifest and deps. */
#include "manifest.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "log.h"
#include "opts.h"
#include "publish.h"
#include "urlkey.h"
#include "xalloc.h"

#define DEPS_FILE "deps"
#define JOURNAL_FILE "journal"
#define MANIFEST_HEADER "# target\tkey\tstatus\ttype\tbytes\tsha256\trender_ms\tchanged\tlocation\n"

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
	default: return &e->deps_contents;
	}
}

size_t manifest_deps_count(const struct manifest_entry *e)
{
	return e->deps_read.n + e->deps_exist.n + e->deps_listed.n + e->deps_contents.n + e->deps_untraced.n;
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

void manifest_release(struct manifest *m)
{
	size_t it = 0;
	const char *k;
	void *val;
	while (hashmap_next(&m->entries, &it, &k, &val))
		manifest_entry_free(val);
	hashmap_release(&m->entries);
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

static int parse_entry(char *line, struct manifest_entry **out)
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
		return err_set(err, "%s/%s/%s:%d: malformed line", l->t->path, TREE_META_DIR, DEPS_FILE, lineno);
	struct manifest_entry *e = manifest_get(l->m, fields[0]);
	if (e) /* else a page no longer in the manifest */
		strlist_add(manifest_deps(e, fields[1][0]), fields[2]);
	return 0;
}

static int manifest_line(char *line, int lineno, void *arg, char *err)
{
	struct load *l = arg;
	struct manifest_entry *e;
	if (parse_entry(line, &e) < 0)
		return err_set(err, "%s/%s/%s:%d: malformed line", l->t->path, TREE_META_DIR, MANIFEST_FILE,
			       lineno);
	manifest_put(l->m, e);
	return 0;
}

int manifest_load(struct manifest *m, struct tree *t, char *err)
{
	struct load l = { m, t };
	if (each_line(t, MANIFEST_FILE, manifest_line, &l, err) < 0)
		return -1;
	return each_line(t, DEPS_FILE, deps_line, &l, err);
}

static const char *or_dash(const char *s)
{
	return s && *s ? s : "-";
}

/* One manifest line, without its newline. */
static void format_entry(struct buf *out, const struct manifest_entry *e)
{
	buf_addf(out, "%s\t%s\t%d\t%s\t%lld\t%s\t%ld\t%lld\t%s", e->target, or_dash(e->key), e->status,
		 or_dash(e->content_type), e->bytes, or_dash(e->sha256), e->render_ms, (long long)e->changed,
		 or_dash(e->location));
}

/* Replace name in dirfd with data unless it holds exactly that already:
 * a run that changed nothing leaves the files (and their mtimes) alone. */
static int save_file(int dirfd, const char *name, const char *data, size_t len, char *err)
{
	int fd = openat(dirfd, name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	struct stat st;
	bool same = false;
	if (fd >= 0 && fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && (size_t)st.st_size == len) {
		char chunk[65536];
		size_t off = 0;
		ssize_t r = 1;
		while (off < len && (r = pread(fd, chunk, sizeof chunk, (off_t)off)) > 0 &&
		       !memcmp(chunk, data + off, (size_t)r < len - off ? (size_t)r : len - off))
			off += (size_t)r;
		same = off == len;
	}
	if (fd >= 0)
		close(fd);
	return same ? 0 : write_file_atomic(dirfd, name, data, len, err);
}

int manifest_save(const struct manifest *m, struct tree *t, char *err)
{
	size_t n;
	struct manifest_entry **v = manifest_sorted(m, &n);
	struct buf out = BUF_INIT, deps = BUF_INIT;
	buf_adds(&out, MANIFEST_HEADER);
	buf_adds(&deps, "# target\tR (read), E (exists?), L (listed), C (all files read) or U (untraced)\tpath\n");
	for (size_t i = 0; i < n; i++) {
		const struct manifest_entry *e = v[i];
		format_entry(&out, e);
		buf_addc(&out, '\n');
		for (const char *k = MANIFEST_DEP_KINDS; *k; k++) {
			const struct strlist *l = manifest_deps((struct manifest_entry *)e, *k);
			for (size_t j = 0; j < l->n; j++)
				buf_addf(&deps, "%s\t%c\t%s\n", e->target, *k, l->items[j]);
		}
	}
	free(v);
	int rc = save_file(t->meta_fd, DEPS_FILE, deps.data, deps.len, err);
	if (rc == 0)
		rc = save_file(t->meta_fd, MANIFEST_FILE, out.data, out.len, err);
	buf_release(&out);
	buf_release(&deps);
	return rc;
}

int manifest_journal(struct tree *t, const struct manifest_entry *e, char *err)
{
	if (t->meta_fd < 0)
		return err_set(err, "tree '%s' has no %s directory", t->path, TREE_META_DIR);
	/* Each record starts with its newline: a record torn by a full disk
	 * then spoils only itself, never the one appended after it. */
	struct buf line = BUF_INIT;
	buf_addc(&line, '\n');
	format_entry(&line, e);
	int rc = 0;
	int fd = openat(t->meta_fd, JOURNAL_FILE, O_WRONLY | O_APPEND | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0644);
	if (fd < 0) {
		rc = err_sys(err, "cannot record '%s' in '%s/%s/%s'", e->key, t->path, TREE_META_DIR, JOURNAL_FILE);
		goto out;
	}
	ssize_t w;
	do
		w = write(fd, line.data, line.len);
	while (w < 0 && errno == EINTR);
	if (w >= 0 && (size_t)w != line.len)
		errno = ENOSPC; /* a short write: the disk or the file size limit */
	if (w < 0 || (size_t)w != line.len)
		rc = err_sys(err, "cannot record '%s' in '%s/%s/%s'", e->key, t->path, TREE_META_DIR, JOURNAL_FILE);
	close(fd);
out:
	buf_release(&line);
	return rc;
}

struct recover {
	struct manifest *m;
	struct tree *t;
	struct hashmap cleaned; /* directories whose temp files went */
	long *recovered;
};

static int journal_line(char *line, int lineno, void *arg, char *err)
{
	struct recover *r = arg;
	struct manifest_entry *e;
	(void)lineno, (void)err;
	if (parse_entry(line, &e) < 0)
		return 0; /* torn by a full disk or a kill: its file was never published */
	if (!e->key || !urlkey_is_safe(e->key)) {
		manifest_entry_free(e);
		return 0;
	}
	const char *slash = strrchr(e->key, '/');
	char *dir = xstrndup(e->key, slash ? (size_t)(slash - e->key) : 0);
	if (!hashmap_get(&r->cleaned, dir)) {
		publish_clean_temps(r->t->fd, e->key);
		hashmap_put(&r->cleaned, dir, (void *)1);
	}
	free(dir);
	/* Recorded before its rename: only a file that really holds
	 * these bytes was published. Otherwise the manifest's entry (the
	 * file before) still describes it. */
	char ignored[ERR_LEN];
	if (publish_owner(r->t->fd, e->key, e->bytes, e->sha256, ignored) == PUBLISH_OURS) {
		manifest_put(r->m, e);
		(*r->recovered)++;
	} else {
		manifest_entry_free(e);
	}
	return 0;
}

int manifest_recover(struct manifest *m, struct tree *t, long *recovered, char *err)
{
	*recovered = 0;
	/* A run killed while saving leaves its temp file here too. */
	if (t->meta_fd >= 0)
		publish_clean_temps(t->meta_fd, MANIFEST_FILE);
	struct recover r = { m, t, HASHMAP_INIT, recovered };
	int rc = each_line(t, JOURNAL_FILE, journal_line, &r, err);
	hashmap_release(&r.cleaned);
	return rc;
}

int manifest_journal_reset(struct tree *t, char *err)
{
	if (t->meta_fd < 0 || unlinkat(t->meta_fd, JOURNAL_FILE, 0) == 0 || errno == ENOENT)
		return 0;
	return err_sys(err, "cannot remove '%s/%s/%s'", t->path, TREE_META_DIR, JOURNAL_FILE);
}
