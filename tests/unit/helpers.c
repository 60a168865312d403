/* helpers.c - scratch directories and fixtures shared by the unit tests. */
#define _XOPEN_SOURCE 700
#include "helpers.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../../config/config.h"
#include "base/buf.h"
#include "base/log.h"
#include "base/rmtree.h"
#include "tree/manifest.h"
#include "tree/tree.h"
#include "unit.h"
#include "base/xalloc.h"

char *unit_temp_dir(const char *tag)
{
	const char *tmp = getenv("TMPDIR");
	char *t = xasprintf("%s/cgisnap-unit-%s.XXXXXX", tmp && *tmp ? tmp : "/tmp", tag);
	char *real = mkdtemp(t) ? realpath(t, NULL) : NULL;
	free(t);
	return real;
}

void unit_drop_dir(char *dir)
{
	unit_remove_tree(dir);
	free(dir);
}

char *unit_tree_open(struct tree *t, const char *tag, const char *sub)
{
	char err[ERR_LEN];
	char *dir = unit_temp_dir(tag);
	if (!dir) {
		unit_fail(__FILE__, __LINE__, "cannot make a scratch directory for %s", tag);
		exit(1);
	}
	char *path = sub ? xasprintf("%s/%s", dir, sub) : xstrdup(dir);
	if (tree_open(t, path, true, err) < 0)
		unit_fail(__FILE__, __LINE__, "%s", err);
	free(path);
	return dir;
}

void unit_remove_tree(const char *path)
{
	struct stat st;
	rmtree(path);
	if (lstat(path, &st) == 0)
		unit_fail(__FILE__, __LINE__, "cannot remove %s", path);
}

void unit_put(const char *dir, const char *name, const char *text)
{
	char *p = xasprintf("%s/%s", dir, name);
	FILE *f = fopen(p, "w");
	if (f) {
		fputs(text, f);
		fclose(f);
	}
	free(p);
}

char *unit_read(const char *dir, const char *name)
{
	char *p = xasprintf("%s/%s", dir, name);
	int fd = open(p, O_RDONLY | O_CLOEXEC);
	free(p);
	if (fd < 0)
		return NULL;
	struct buf b = BUF_INIT;
	int rc = buf_read_fd(&b, fd, (size_t)1 << 30);
	close(fd);
	if (rc < 0) {
		buf_release(&b);
		return NULL;
	}
	return buf_detach(&b, NULL);
}

void unit_make_dir(const char *dir, const char *name)
{
	char *p = xasprintf("%s/%s", dir, name);
	mkdir(p, 0755);
	free(p);
}

struct manifest_entry *unit_entry(const char *target, int status, const char *key, const char *type,
			      const char *location)
{
	struct manifest_entry *e = manifest_entry_new(target);
	e->status = status;
	e->key = key ? xstrdup(key) : NULL;
	e->content_type = type ? xstrdup(type) : NULL;
	e->location = location ? xstrdup(location) : NULL;
	return e;
}

void unit_treeinfo_add(struct treeinfo *ti, const char *target, int status, const char *key, const char *type,
		       const char *location)
{
	struct manifest_entry *e = unit_entry(target, status, key, type, location);
	treeinfo_add(ti, e);
	manifest_entry_free(e);
}

char *unit_joined(const struct strlist *l, const char *sep)
{
	struct buf b = BUF_INIT;
	for (size_t i = 0; i < l->n; i++)
		buf_addf(&b, "%s%s", i ? sep : "", l->items[i]);
	return buf_detach(&b, NULL);
}

void unit_empty_tree(struct treeinfo *ti, const char *site_url)
{
	treeinfo_init(ti, site_url);
	ti->dir = xstrdup("t");
	ti->root = xstrdup("/t");
}

void unit_blog_tree(struct treeinfo *ti, const char *root, const char *cost_to)
{
	treeinfo_init(ti, "http://blog.example.com/");
	ti->dir = xstrdup("out");
	ti->root = xstrdup(root);
	ti->have_404 = true;
	unit_treeinfo_add(ti, "/", 200, "index.html", "text/html; charset=UTF-8", NULL);
	unit_treeinfo_add(ti, "/?p=5", 301, NULL, NULL, "http://blog.example.com/2020/05/x/");
	unit_treeinfo_add(ti, "/cost", 302, NULL, NULL, cost_to);
	unit_treeinfo_add(ti, "/feed/", 200, "feed/index.html", "application/rss+xml; charset=UTF-8", NULL);
	unit_treeinfo_add(ti, "/feed/0", 404, NULL, NULL, NULL);
	unit_treeinfo_add(ti, "/gone", 410, NULL, NULL, NULL);
}

static char *config_text(const struct treeinfo *ti, const char *listen, const char *cc, bool apache)
{
	struct config_params p;
	char err[ERR_LEN];
	struct buf out = BUF_INIT;
	CHECK_INT(0, config_params_init(&p, ti, listen, NULL, cc, err));
	if (apache)
		apache_write(&out, NULL, ti, &p);
	else
		nginx_write(&out, ti, &p);
	config_params_release(&p);
	return buf_detach(&out, NULL);
}

char *unit_apache_text(const struct treeinfo *ti, const char *listen, const char *cc)
{
	return config_text(ti, listen, cc, true);
}

char *unit_nginx_text(const struct treeinfo *ti, const char *listen, const char *cc)
{
	return config_text(ti, listen, cc, false);
}

static const char *shown(const char *s)
{
	return s ? s : "(null)";
}

/* One case's answer against its want; NULL equals only NULL. */
static void check_answer(const char *file, int line, const char *name, const struct str_case *c, const char *got)
{
	if ((c->want == NULL) != (got == NULL) || (got && strcmp(c->want, got)))
		unit_fail(file, line, "%s(\"%s\"): expected \"%s\", saw \"%s\"", name, shown(c->in),
			  shown(c->want), shown(got));
}

void unit_check_map(const char *file, int line, const char *name, const char *(*fn)(const char *),
		    const struct str_case *cases, size_t n)
{
	for (size_t i = 0; i < n; i++)
		check_answer(file, line, name, &cases[i], fn(cases[i].in));
}

void unit_check_writes(const char *file, int line, const char *name, void (*fn)(struct buf *, const char *),
		       const struct str_case *cases, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		struct buf b = BUF_INIT;
		fn(&b, cases[i].in);
		check_answer(file, line, name, &cases[i], buf_str(&b));
		buf_release(&b);
	}
}

void unit_check_tests(const char *file, int line, const char *name, bool (*fn)(const char *),
		      const struct bool_case *cases, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (fn(cases[i].in) != cases[i].want)
			unit_fail(file, line, "%s(\"%s\") should be %s", name, shown(cases[i].in),
				  cases[i].want ? "true" : "false");
}
