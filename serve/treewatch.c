/* serve/treewatch.c - recursive inotify over the tree (see treewatch.h). */
#include "treewatch.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/inotify.h>
#include <sys/stat.h>
#include <unistd.h>

#include "buf.h"
#include "log.h"
#include "tree.h"
#include "xalloc.h"

#define WATCH_MASK (IN_CLOSE_WRITE | IN_MOVED_TO | IN_MOVED_FROM | IN_CREATE | IN_DELETE | \
		    IN_DELETE_SELF | IN_MOVE_SELF | IN_ATTRIB | IN_MODIFY | IN_EXCL_UNLINK | \
		    IN_ONLYDIR | IN_DONT_FOLLOW)

struct treewatch {
	int fd;
	char *root;
	char **paths;   /* watch descriptor -> directory relative to root ("" for root) */
	size_t npaths;
	bool incomplete;
};

static void set_path(struct treewatch *w, int wd, const char *rel)
{
	if ((size_t)wd >= w->npaths) {
		size_t n = w->npaths ? w->npaths : 64;
		while (n <= (size_t)wd)
			n *= 2;
		w->paths = xrealloc(w->paths, n * sizeof *w->paths);
		memset(w->paths + w->npaths, 0, (n - w->npaths) * sizeof *w->paths);
		w->npaths = n;
	}
	free(w->paths[wd]);
	w->paths[wd] = xstrdup(rel);
}

static const char *path_of(const struct treewatch *w, int wd)
{
	return wd >= 0 && (size_t)wd < w->npaths ? w->paths[wd] : NULL;
}

static void forget(struct treewatch *w, int wd)
{
	if (wd >= 0 && (size_t)wd < w->npaths) {
		free(w->paths[wd]);
		w->paths[wd] = NULL;
	}
}

/* Stop watching dir and every directory under it (moved away, deleted). */
static void forget_prefix(struct treewatch *w, const char *dir)
{
	size_t n = strlen(dir);
	for (size_t wd = 0; wd < w->npaths; wd++) {
		const char *p = w->paths[wd];
		if (p && !strncmp(p, dir, n) && (p[n] == '\0' || p[n] == '/')) {
			inotify_rm_watch(w->fd, (int)wd);
			forget(w, (int)wd);
		}
	}
}

static char *join(const char *dir, const char *name)
{
	return *dir ? xasprintf("%s/%s", dir, name) : xstrdup(name);
}

/* Watch rel and the directories under it, breadth first (no descriptor
 * per level of depth). */
static void add_tree(struct treewatch *w, const char *rel)
{
	struct strlist queue = STRLIST_INIT;
	strlist_add(&queue, rel);
	for (size_t i = 0; i < queue.n; i++) {
		const char *dir = queue.items[i];
		char *path = *dir ? xasprintf("%s/%s", w->root, dir) : xstrdup(w->root);
		int wd = inotify_add_watch(w->fd, path, WATCH_MASK);
		if (wd < 0) {
			/* Gone already (ENOENT, ENOTDIR): nothing to watch. Out of
			 * watches: the cache can no longer be trusted. */
			if (errno == ENOSPC || errno == ENOMEM)
				w->incomplete = true;
			free(path);
			continue;
		}
		set_path(w, wd, dir);
		/* .cgisnap/ is watched for its files only. */
		bool recurse = strcmp(dir, TREE_META_DIR) != 0;
		int dfd = recurse ? open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC) : -1;
		free(path);
		DIR *d = dfd >= 0 ? fdopendir(dfd) : NULL;
		if (!d) {
			if (dfd >= 0)
				close(dfd);
			continue;
		}
		struct dirent *de;
		while ((de = readdir(d))) {
			const char *name = de->d_name;
			if (name[0] == '.' && !(!*dir && !strcmp(name, TREE_META_DIR)))
				continue;
			bool is_dir = de->d_type == DT_DIR;
			if (de->d_type == DT_UNKNOWN) {
				struct stat st;
				is_dir = fstatat(dirfd(d), name, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
					 S_ISDIR(st.st_mode);
			}
			if (is_dir)
				strlist_add_owned(&queue, join(dir, name));
		}
		closedir(d);
	}
	strlist_clear(&queue);
}

struct treewatch *treewatch_open(const char *root, char *err)
{
	int fd = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
	if (fd < 0) {
		err_sys(err, "cannot watch tree '%s'", root);
		return NULL;
	}
	struct treewatch *w = xcalloc(1, sizeof *w);
	w->fd = fd;
	w->root = xstrdup(root);
	add_tree(w, "");
	return w;
}

int treewatch_fd(const struct treewatch *w)
{
	return w->fd;
}

bool treewatch_complete(const struct treewatch *w)
{
	return !w->incomplete;
}

static void handle(struct treewatch *w, const struct inotify_event *ev,
		   const struct treewatch_ops *ops, void *ctx)
{
	if (ev->mask & IN_Q_OVERFLOW) {
		ops->overflow(ctx);
		/* Directories created meanwhile were missed: look again
		 * (watched ones keep their descriptors). */
		add_tree(w, "");
		return;
	}
	const char *dir = path_of(w, ev->wd);
	if (!dir)
		return;
	if (ev->mask & IN_IGNORED) {
		forget(w, ev->wd);
		return;
	}
	if (!ev->len) {
		/* The watched directory itself: deleted or moved. Its parent
		 * reports the same for anything but the root. */
		if ((ev->mask & (IN_DELETE_SELF | IN_MOVE_SELF)) && !*dir)
			ops->overflow(ctx);
		return;
	}
	const char *name = ev->name;
	bool is_dir = ev->mask & IN_ISDIR;
	if (!strcmp(dir, TREE_META_DIR)) {
		if (name[0] != '.' && !is_dir)
			ops->meta_changed(ctx, name);
		return;
	}
	if (name[0] == '.') {
		/* .cgisnap/ itself (re)appearing: watch it, reread what it holds. */
		if (!*dir && !strcmp(name, TREE_META_DIR) && is_dir &&
		    (ev->mask & (IN_CREATE | IN_MOVED_TO))) {
			add_tree(w, TREE_META_DIR);
			ops->meta_changed(ctx, "manifest");
		}
		return;
	}
	char *rel = join(dir, name);
	if (is_dir) {
		if (ev->mask & (IN_MOVED_FROM | IN_DELETE))
			forget_prefix(w, rel);
		if (ev->mask & (IN_CREATE | IN_MOVED_TO))
			add_tree(w, rel);
		ops->dir_changed(ctx, rel);
	} else {
		ops->file_changed(ctx, rel);
	}
	free(rel);
}

void treewatch_process(struct treewatch *w, const struct treewatch_ops *ops, void *ctx)
{
	char buf[64 * 1024] __attribute__((aligned(__alignof__(struct inotify_event))));
	for (;;) {
		ssize_t n = read(w->fd, buf, sizeof buf);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return;
		for (char *p = buf; p < buf + n;) {
			const struct inotify_event *ev = (const struct inotify_event *)p;
			handle(w, ev, ops, ctx);
			p += sizeof *ev + ev->len;
		}
	}
}

void treewatch_close(struct treewatch *w)
{
	if (!w)
		return;
	close(w->fd);
	for (size_t i = 0; i < w->npaths; i++)
		free(w->paths[i]);
	free(w->paths);
	free(w->root);
	free(w);
}
