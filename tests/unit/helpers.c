/* helpers.c - scratch directories and fixtures shared by the unit tests. */
#define _XOPEN_SOURCE 700
#include "helpers.h"

#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>

#include "../../config/config.h"
#include "base/log.h"
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

static int remove_entry(const char *path, const struct stat *st, int type, struct FTW *ftw)
{
	(void)st;
	(void)type;
	(void)ftw;
	remove(path);
	return 0;
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
	nftw(path, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
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

void unit_make_dir(const char *dir, const char *name)
{
	char *p = xasprintf("%s/%s", dir, name);
	mkdir(p, 0755);
	free(p);
}

void unit_treeinfo_add(struct treeinfo *ti, const char *target, int status, const char *key, const char *type,
		       const char *location)
{
	struct manifest_entry *e = manifest_entry_new(target);
	e->status = status;
	e->key = key ? xstrdup(key) : NULL;
	e->content_type = type ? xstrdup(type) : NULL;
	e->location = location ? xstrdup(location) : NULL;
	treeinfo_add(ti, e);
	manifest_entry_free(e);
}
