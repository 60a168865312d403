/* serve/treewatch.c - the tree watched through lib/fswatch (see
 * treewatch.h). */
#include "treewatch.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "base/fswatch.h"
#include "base/log.h"
#include "tree/manifest.h"
#include "tree/tree.h"
#include "base/xalloc.h"

#define WATCH_WANT (FSW_WATCH_WRITES | FSW_WATCH_NAMES | FSW_WATCH_SELF | FSW_WATCH_ATTRIB | \
		    FSW_WATCH_MODIFY | FSW_WATCH_NOFOLLOW)

struct treewatch {
	struct fswatch *fs;
	char *root;
	bool incomplete;
	/* during treewatch_process */
	const struct treewatch_ops *ops;
	void *ctx;
};

/* A watched path relative to the root ("" for the root itself). */
static const char *rel_of(const struct treewatch *w, const char *path)
{
	size_t n = strlen(w->root);
	if (!strcmp(path, w->root))
		return "";
	return path + n + (n && w->root[n - 1] == '/' ? 0 : 1);
}

static char *join(const char *dir, const char *name)
{
	return *dir ? xasprintf("%s/%s", dir, name) : xstrdup(name);
}

/* Which directories are watched (an fsw_walk.enter): dot-directories are
 * skipped but the top .cgisnap/, which is watched for its files only. */
static bool enter(void *ctx, const char *path, const char *name)
{
	const char *dir = rel_of(ctx, path);
	if (!strcmp(dir, TREE_META_DIR))
		return false;
	return !(name[0] == '.' && !(!*dir && !strcmp(name, TREE_META_DIR)));
}

/* Gone already (ENOENT, ENOTDIR): nothing to watch (fswatch skips it). Out
 * of watches: the cache can no longer be trusted. */
static void failed(void *ctx, const char *path, int errnum)
{
	struct treewatch *w = ctx;
	(void)path;
	if (errnum == ENOSPC || errnum == ENOMEM)
		w->incomplete = true;
}

/* Watch rel and the directories under it. */
static void add_tree(struct treewatch *w, const char *rel)
{
	char err[ERR_LEN];
	const struct fsw_walk walk = { WATCH_WANT, enter, failed, w, NULL };
	char *path = *rel ? xasprintf("%s/%s", w->root, rel) : xstrdup(w->root);
	fswatch_add_tree(w->fs, path, &walk, err);
	free(path);
}

struct treewatch *treewatch_open(const char *root, char *err)
{
	char why[ERR_LEN];
	struct fswatch *fs = fswatch_new(NULL, why);
	if (!fs) {
		err_set(err, "cannot watch tree '%s': %s", root, strerror(errno));
		return NULL;
	}
	struct treewatch *w = xcalloc(1, sizeof *w);
	w->fs = fs;
	w->root = xstrdup(root);
	add_tree(w, "");
	return w;
}

int treewatch_fd(const struct treewatch *w)
{
	return fswatch_fd(w->fs);
}

bool treewatch_complete(const struct treewatch *w)
{
	return !w->incomplete;
}

/* One event of fswatch, reported through w->ops (an fswatch_fn). */
static void handle(void *ctx, struct fsw_dir *d, const char *name, unsigned flags)
{
	struct treewatch *w = ctx;
	const struct treewatch_ops *ops = w->ops;
	if (flags & FSW_OVERFLOW) {
		ops->overflow(w->ctx);
		/* Directories created meanwhile were missed: look again
		 * (watched ones keep their descriptors). */
		add_tree(w, "");
		return;
	}
	const char *dir = rel_of(w, d->path);
	if (!name) {
		/* The watched directory itself: deleted or moved. Its parent
		 * reports the same for anything but the root. */
		if ((flags & FSW_SELF) && !*dir)
			ops->overflow(w->ctx);
		return;
	}
	bool is_dir = flags & FSW_DIR;
	if (!strcmp(dir, TREE_META_DIR)) {
		if (name[0] != '.' && !is_dir)
			ops->meta_changed(w->ctx, name);
		return;
	}
	if (name[0] == '.') {
		/* .cgisnap/ itself (re)appearing: watch it, reread what it holds. */
		if (!*dir && !strcmp(name, TREE_META_DIR) && is_dir && (flags & FSW_CREATED)) {
			add_tree(w, TREE_META_DIR);
			ops->meta_changed(w->ctx, MANIFEST_DB_FILE);
		}
		return;
	}
	char *rel = join(dir, name);
	if (is_dir) {
		char err[ERR_LEN];
		char *path = fswatch_path(d, name);
		const struct fsw_walk walk = { WATCH_WANT, enter, failed, w, NULL };
		fswatch_follow(w->fs, path, flags, &walk, err);
		free(path);
		ops->dir_changed(w->ctx, rel);
	} else {
		ops->file_changed(w->ctx, rel);
	}
	free(rel);
}

void treewatch_process(struct treewatch *w, const struct treewatch_ops *ops, void *ctx)
{
	char err[ERR_LEN];
	w->ops = ops;
	w->ctx = ctx;
	while (fswatch_read(w->fs, handle, w, err) > 0)
		;
	w->ops = NULL;
	w->ctx = NULL;
}

void treewatch_close(struct treewatch *w)
{
	if (!w)
		return;
	fswatch_free(w->fs);
	free(w->root);
	free(w);
}
