/* config/treeinfo.c - a snapshot tree as the generated server
 * configurations see it (treeinfo.h): settings, manifest and 404 page,
 * sorted into what plain rules find and what must be listed per URL. */
#include "treeinfo.h"

#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "tree/answer.h"
#include "base/log.h"
#include "url/reqpath.h"
#include "tree/tree.h"
#include "url/urlkey.h"
#include "base/xalloc.h"

void treeinfo_init(struct treeinfo *ti, const char *site_url)
{
	char err[ERR_LEN];
	memset(ti, 0, sizeof *ti);
	if (site_init(&ti->site, site_url, err) < 0) {
		/* Callers pass constants or URLs already parsed once. */
		log_error("%s", err);
		exit(3);
	}
	strlist_add(&ti->suffixes, ".html");
}

/* Free the entries of l and its array; l is left empty. */
static void list_release(struct ti_list *l)
{
	for (size_t i = 0; i < l->n; i++) {
		struct ti_entry *e = &l->items[i];
		free(e->target);
		free(e->path);
		free(e->query);
		free(e->location);
		free(e->key);
	}
	free(l->items);
	memset(l, 0, sizeof *l);
}

void treeinfo_release(struct treeinfo *ti)
{
	free(ti->dir);
	free(ti->root);
	site_release(&ti->site);
	strlist_clear(&ti->suffixes);
	strlist_clear(&ti->types);
	strlist_clear(&ti->queries);
	list_release(&ti->redirects);
	list_release(&ti->statuses);
	list_release(&ti->files);
	memset(ti, 0, sizeof *ti);
}

void treeinfo_split(const char *target, char **path, char **query)
{
	struct buf b = BUF_INIT;
	const char *q = strchr(target, '?');
	size_t len = q ? (size_t)(q - target) : strlen(target);
	url_decode(&b, target, len);
	*path = b.data ? buf_detach(&b, NULL) : xstrdup("");
	*query = q && q[1] ? xstrdup(q + 1) : NULL;
}

/* True when s starts with an encoded '/'. */
static bool treeinfo_encoded_slash_at(const char *s)
{
	return s[0] == '%' && s[1] == '2' && (s[2] == 'F' || s[2] == 'f');
}

bool treeinfo_encoded_slash(const char *target)
{
	for (const char *p = target; *p && *p != '?'; p++)
		if (treeinfo_encoded_slash_at(p))
			return true;
	return false;
}

char *treeinfo_slash_path(const char *target)
{
	struct buf b = BUF_INIT, part = BUF_INIT;
	size_t len = strcspn(target, "?");
	for (size_t i = 0; i < len;) {
		size_t n = 0;
		while (i + n < len && !treeinfo_encoded_slash_at(target + i + n))
			n++;
		url_decode(&part, target + i, n); /* resets part */
		buf_add(&b, part.data, part.len);
		i += n;
		if (i < len) {
			buf_add(&b, target + i, 3); /* "%2F" as it came */
			i += 3;
		}
	}
	buf_release(&part);
	return b.data ? buf_detach(&b, NULL) : xstrdup("");
}

char *treeinfo_rule_key(const char *path, const char *query, const char *suffix)
{
	const char *rel = path[0] == '/' ? path + 1 : path;
	if (query)
		return xasprintf("%s@%s%s", rel, query, suffix);
	size_t n = strlen(rel);
	if (!n || rel[n - 1] == '/')
		return xasprintf("%sindex.html", rel);
	const char *last = strrchr(rel, '/');
	last = last ? last + 1 : rel;
	if (strchr(last, '.'))
		return xstrdup(rel);
	return xasprintf("%s/index.html", rel);
}

const char *treeinfo_suffix(const char *key)
{
	const char *base = strrchr(key, '/');
	base = base ? base + 1 : key;
	const char *dot = strrchr(base, '.');
	return dot && dot != base ? dot : key + strlen(key);
}

/* A new entry at the end of l for target (path and query split from it). */
static struct ti_entry *list_add(struct ti_list *l, const char *target, int status)
{
	if (l->n == l->cap) {
		l->cap = l->cap ? l->cap * 2 : 16;
		l->items = xrealloc(l->items, l->cap * sizeof *l->items);
	}
	struct ti_entry *e = &l->items[l->n++];
	memset(e, 0, sizeof *e);
	e->target = xstrdup(target);
	treeinfo_split(target, &e->path, &e->query);
	e->status = status;
	return e;
}

/* The 1-based index of type in ti->types, added when new. */
static int type_index(struct treeinfo *ti, const char *type)
{
	for (size_t i = 0; i < ti->types.n; i++)
		if (!strcmp(ti->types.items[i], type))
			return (int)i + 1;
	strlist_add(&ti->types, type);
	return (int)ti->types.n;
}

/* True when the plain rules find key for target on their own. For "/x"
 * they find x/index.html only to answer a 301 to "/x/" (answer.h): a
 * page the manifest lists under "/x" itself is listed. */
static bool rules_find(const char *target, const char *key)
{
	char *path, *query;
	treeinfo_split(target, &path, &query);
	char *found = treeinfo_rule_key(path, query, treeinfo_suffix(key));
	const char *last = strrchr(path, '/');
	bool slash_form = !query && last && last[1] && !strchr(last, '.');
	bool same = !strcmp(found, key) && !slash_form;
	free(found);
	free(path);
	free(query);
	return same;
}

void treeinfo_add(struct treeinfo *ti, const struct manifest_entry *e)
{
	const char *origin_form;
	/* What cgisnap serve refuses before looking (hostile or malformed
	 * targets) no configuration needs to answer either. Hidden ones
	 * (dotfile names, 404) are answered as recorded: the rules never
	 * find their files ("/.x" is "%2Ex"), so they are listed. */
	int rc = e->target[0] == '/' ? reqpath_check(e->target, &origin_form) : 400;
	if (rc != 0 && rc != 404) {
		ti->skipped++;
		return;
	}
	const char *q = strchr(e->target, '?');
	if (q && strchr(q, '&'))
		strlist_add(&ti->queries, q + 1);
	/* The same answer as cgisnap serve's (answer.h). */
	struct answer a;
	answer_for(e, e->target, &a);
	switch (a.kind) {
	case ANSWER_REDIRECT:
		list_add(&ti->redirects, e->target, a.status)->location = xstrdup(a.location);
		goto out;
	case ANSWER_GONE:
		list_add(&ti->statuses, e->target, a.status);
		goto out;
	case ANSWER_MISSING:
		/* A failed render stores no file: serve answers 404 even when
		 * an old file is still there. */
		list_add(&ti->statuses, e->target, 404);
		goto out;
	case ANSWER_FILE:
		break;
	}
	const char *suffix = treeinfo_suffix(a.key);
	if (strchr(e->target, '?') && *suffix && !strlist_contains(&ti->suffixes, suffix))
		strlist_add(&ti->suffixes, suffix);
	int type = a.content_type && !mime_implied(a.key, a.content_type) ?
			   type_index(ti, a.content_type) :
			   0;
	if (type || !rules_find(e->target, a.key)) {
		struct ti_entry *f = list_add(&ti->files, e->target, 200);
		f->key = a.key;
		a.key = NULL;
		f->type = type;
		goto out;
	}
	ti->by_rule++;
out:
	answer_release(&a);
}

/* qsort's comparison of two strings of a strlist. */
static int compare_strings(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Where the servers find the tree: root_path as given, else dir's real
 * path. Fresh string, or NULL with err. */
static char *root_of(const char *dir, const char *root_path, char *err)
{
	if (root_path) {
		if (root_path[0] != '/') {
			err_set(err, "--root-path '%s' is not an absolute path", root_path);
			return NULL;
		}
		size_t n = strlen(root_path);
		while (n > 1 && root_path[n - 1] == '/')
			n--;
		return xstrndup(root_path, n);
	}
	char *real = realpath(dir, NULL);
	if (!real)
		err_sys(err, "cannot resolve '%s'", dir);
	return real;
}

/* Server configurations quote the root, but nginx expands '$' in root
 * and alias, and mod_rewrite '$' and '%' in substitutions: such paths are
 * refused rather than half escaped. */
static int check_root(const char *root, char *err)
{
	for (const unsigned char *c = (const unsigned char *)root; *c; c++)
		if (*c < 0x20 || *c == 0x7f || strchr("\"\\$%'", *c))
			return err_set(err, "cannot write a server configuration for the path '%s' "
				       "(it holds '%c'; use --root-path)", root, *c < 0x20 ? '?' : *c);
	return 0;
}

int treeinfo_load(struct treeinfo *ti, const char *dir, const char *root_path, char *err)
{
	struct tree t;
	struct manifest m = MANIFEST_INIT;
	struct manifest_entry **sorted = NULL;
	struct stat st;
	int rc = -1;

	treeinfo_init(ti, "http://localhost/");
	ti->dir = xstrdup(dir);
	if (tree_open(&t, dir, false, err) < 0)
		return -1;
	if (t.meta_fd < 0) {
		err_set(err, "'%s' is not a snapshot tree (no %s directory)", dir, TREE_META_DIR);
		goto out;
	}
	ti->root = root_of(dir, root_path, err);
	if (!ti->root || check_root(ti->root, err) < 0)
		goto out;
	if (tree_load_settings(&t, &ti->site, err) < 0 || manifest_load(&m, &t, err) < 0)
		goto out;
	ti->have_404 = fstatat(t.meta_fd, "404.html", &st, 0) == 0 && S_ISREG(st.st_mode);

	size_t n;
	sorted = manifest_sorted(&m, &n);
	for (size_t i = 0; i < n; i++)
		treeinfo_add(ti, sorted[i]);
	/* ".html" stays first: serve itself finds unlisted query pages
	 * only as .html. */
	if (ti->suffixes.n > 2)
		qsort(ti->suffixes.items + 1, ti->suffixes.n - 1, sizeof *ti->suffixes.items,
		      compare_strings);
	rc = 0;
out:
	free(sorted);
	manifest_release(&m);
	tree_close(&t);
	return rc;
}
