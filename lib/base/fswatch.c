/* fswatch.c - directories watched through the kernel's inotify API (see
 * fswatch.h). */
#include "base/fswatch.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/inotify.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/buf.h"
#include "base/hashmap.h"
#include "base/log.h"
#include "base/xalloc.h"

struct fswatch {
	int fd;
	struct hashmap dirs; /* decimal wd -> struct fsw_dir * */
	void (*release)(void *data);
	unsigned generation;
};

void fsw_events_add(struct fsw_events *ev, unsigned flags, const char *path)
{
	if (ev->n == ev->cap) {
		ev->cap = ev->cap ? ev->cap * 2 : 16;
		ev->items = xrealloc(ev->items, ev->cap * sizeof *ev->items);
	}
	ev->items[ev->n].flags = flags;
	ev->items[ev->n].path = path ? xstrdup(path) : NULL;
	ev->n++;
}

void fsw_events_clear(struct fsw_events *ev)
{
	for (size_t i = 0; i < ev->n; i++)
		free(ev->items[i].path);
	free(ev->items);
	memset(ev, 0, sizeof *ev);
}

struct fswatch *fswatch_new(void (*release)(void *data), char *err)
{
	int fd = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
	if (fd < 0) {
		err_sys(err, "cannot start inotify");
		return NULL;
	}
	struct fswatch *w = xcalloc(1, sizeof *w);
	w->fd = fd;
	w->release = release;
	return w;
}

int fswatch_fd(const struct fswatch *w)
{
	return w->fd;
}

unsigned fswatch_next_generation(struct fswatch *w)
{
	return ++w->generation;
}

struct fsw_dir *fswatch_next(const struct fswatch *w, size_t *it)
{
	void *v;
	return hashmap_next(&w->dirs, it, NULL, &v) ? v : NULL;
}

/* The kernel's mask for want. IN_ONLYDIR: only directories are watched;
 * IN_EXCL_UNLINK: nothing about files already unlinked (a temp file still
 * open). */
static uint32_t kernel_mask(unsigned want)
{
	uint32_t m = IN_ONLYDIR | IN_EXCL_UNLINK;
	if (want & FSW_WATCH_WRITES)
		m |= IN_CLOSE_WRITE;
	if (want & FSW_WATCH_MODIFY)
		m |= IN_MODIFY;
	if (want & FSW_WATCH_ATTRIB)
		m |= IN_ATTRIB;
	if (want & FSW_WATCH_NAMES)
		m |= IN_CREATE | IN_DELETE | IN_MOVED_FROM | IN_MOVED_TO;
	if (want & FSW_WATCH_NEW_NAMES)
		m |= IN_CREATE | IN_MOVED_TO;
	if (want & FSW_WATCH_SELF)
		m |= IN_DELETE_SELF | IN_MOVE_SELF;
	if (want & FSW_WATCH_NOFOLLOW)
		m |= IN_DONT_FOLLOW;
	return m;
}

/* The map key of a watch descriptor. */
static void wd_key(char key[16], int wd)
{
	snprintf(key, 16, "%d", wd);
}

/* The directory of a watch descriptor, or NULL. */
static struct fsw_dir *find_wd(const struct fswatch *w, int wd)
{
	char key[16];
	wd_key(key, wd);
	return hashmap_get(&w->dirs, key);
}

/* Forget a watch (the kernel already dropped it, or is told to). */
static void forget(struct fswatch *w, struct fsw_dir *d, bool tell_kernel)
{
	char key[16];
	wd_key(key, d->wd);
	hashmap_remove(&w->dirs, key);
	if (tell_kernel)
		inotify_rm_watch(w->fd, d->wd);
	if (d->data && w->release)
		w->release(d->data);
	free(d->path);
	free(d);
}

void fswatch_unwatch(struct fswatch *w, struct fsw_dir *d)
{
	forget(w, d, true);
}

struct fsw_dir *fswatch_watch(struct fswatch *w, const char *path, unsigned want, char *err)
{
	/* IN_MASK_ADD: one directory may have several purposes (single
	 * files in a tree, the parent of another source), each its events. */
	int wd = inotify_add_watch(w->fd, path, kernel_mask(want) | IN_MASK_ADD);
	if (wd < 0) {
		err_sys(err, "cannot watch '%s'", path);
		return NULL;
	}
	struct fsw_dir *d = find_wd(w, wd);
	if (d && strcmp(d->path, path)) {
		/* The same directory under a new name (moved): rename it. */
		free(d->path);
		d->path = xstrdup(path);
	}
	if (!d) {
		char key[16];
		d = xcalloc(1, sizeof *d);
		d->wd = wd;
		d->path = xstrdup(path);
		wd_key(key, wd);
		hashmap_put(&w->dirs, key, d);
	}
	d->seen = w->generation;
	return d;
}

void fswatch_narrow(struct fswatch *w, struct fsw_dir *d, unsigned want)
{
	/* No IN_MASK_ADD: the mask is replaced. Should the path be another
	 * directory by now, the watch just made there is not one of ours. */
	int wd = inotify_add_watch(w->fd, d->path, kernel_mask(want));
	if (wd >= 0 && wd != d->wd && !find_wd(w, wd))
		inotify_rm_watch(w->fd, wd);
}

char *fswatch_path(const struct fsw_dir *d, const char *name)
{
	size_t n = strlen(d->path);
	return n && d->path[n - 1] == '/' ? xasprintf("%s%s", d->path, name) : xasprintf("%s/%s", d->path, name);
}

int fswatch_add_tree(struct fswatch *w, const char *path, const struct fsw_walk *walk, char *err)
{
	struct strlist queue = STRLIST_INIT;
	int rc = 0;
	strlist_add(&queue, path);
	for (size_t i = 0; rc == 0 && i < queue.n; i++) {
		struct fsw_dir *d = fswatch_watch(w, queue.items[i], walk->want, err);
		if (!d) {
			if (errno == ENOENT || errno == ENOTDIR)
				continue; /* gone already: nothing to watch */
			if (walk->failed) {
				walk->failed(walk->ctx, queue.items[i], errno);
				continue;
			}
			rc = -1;
			break;
		}
		d->tree = true;
		int dfd = open(d->path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		DIR *dir = dfd >= 0 ? fdopendir(dfd) : NULL;
		if (!dir) {
			/* gone, or unreadable: its events still come */
			if (dfd >= 0)
				close(dfd);
			continue;
		}
		struct dirent *de;
		while ((de = readdir(dir))) {
			const char *name = de->d_name;
			if (!strcmp(name, ".") || !strcmp(name, ".."))
				continue;
			bool is_dir = de->d_type == DT_DIR;
			if (de->d_type == DT_UNKNOWN) {
				struct stat st;
				is_dir = fstatat(dirfd(dir), name, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
					 S_ISDIR(st.st_mode);
			}
			if (is_dir && walk->enter && !walk->enter(walk->ctx, d->path, name))
				continue;
			char *sub = fswatch_path(d, name);
			if (walk->report)
				fsw_events_add(walk->report, FSW_CREATED | (is_dir ? FSW_DIR : 0), sub);
			if (is_dir)
				strlist_add_owned(&queue, sub);
			else
				free(sub);
		}
		closedir(dir);
	}
	int saved = errno;
	strlist_clear(&queue);
	errno = saved;
	return rc;
}

void fswatch_drop_tree(struct fswatch *w, const char *path)
{
	size_t len = strlen(path);
	struct fsw_dir **gone = NULL;
	size_t n = 0, it = 0;
	struct fsw_dir *d;
	while ((d = fswatch_next(w, &it))) {
		if (d->tree && !strncmp(d->path, path, len) && (d->path[len] == '\0' || d->path[len] == '/')) {
			gone = xrealloc(gone, (n + 1) * sizeof *gone);
			gone[n++] = d;
		}
	}
	for (size_t i = 0; i < n; i++)
		forget(w, gone[i], true);
	free(gone);
}

int fswatch_follow(struct fswatch *w, const char *path, unsigned flags, const struct fsw_walk *walk,
		   char *err)
{
	if (!(flags & FSW_DIR))
		return 0;
	if (flags & FSW_REMOVED)
		fswatch_drop_tree(w, path);
	if (flags & FSW_CREATED)
		return fswatch_add_tree(w, path, walk, err);
	return 0;
}

/* Hand one kernel event to fn. */
static void handle(struct fswatch *w, const struct inotify_event *ie, fswatch_fn *fn, void *ctx)
{
	if (ie->mask & IN_Q_OVERFLOW) {
		fn(ctx, NULL, NULL, FSW_OVERFLOW);
		return;
	}
	struct fsw_dir *d = find_wd(w, ie->wd);
	if (!d)
		return; /* a watch already forgotten */
	if (ie->mask & IN_IGNORED) {
		fn(ctx, d, NULL, FSW_IGNORED);
		forget(w, d, false);
		return;
	}
	if (ie->mask & (IN_DELETE_SELF | IN_MOVE_SELF)) {
		fn(ctx, d, NULL, FSW_SELF);
		return;
	}
	if (!ie->len || !ie->name[0])
		return; /* the directory's own attributes, its unmount */
	unsigned flags = 0;
	if (ie->mask & (IN_CLOSE_WRITE | IN_MODIFY | IN_ATTRIB))
		flags |= FSW_CHANGED;
	if (ie->mask & (IN_CREATE | IN_MOVED_TO))
		flags |= FSW_CREATED;
	if (ie->mask & (IN_DELETE | IN_MOVED_FROM))
		flags |= FSW_REMOVED;
	if (!flags)
		return;
	/* A write still open, a name moved: a save may be under way. */
	if ((ie->mask & IN_MODIFY) && !(ie->mask & IN_CLOSE_WRITE))
		flags |= FSW_WRITING;
	if (ie->mask & (IN_MOVED_TO | IN_MOVED_FROM))
		flags |= FSW_RENAMED;
	if (ie->mask & IN_ISDIR)
		flags |= FSW_DIR;
	fn(ctx, d, ie->name, flags);
}

int fswatch_read(struct fswatch *w, fswatch_fn *fn, void *ctx, char *err)
{
	/* Aligned for struct inotify_event, large enough for many. */
	char buf[65536] __attribute__((aligned(__alignof__(struct inotify_event))));
	ssize_t n;
	do
		n = read(w->fd, buf, sizeof buf);
	while (n < 0 && errno == EINTR);
	if (n < 0 && errno == EAGAIN)
		return 0;
	if (n < 0)
		return err_sys(err, "cannot read inotify events");
	if (n == 0)
		return 0;
	for (char *p = buf; p < buf + n;) {
		const struct inotify_event *ie = (const struct inotify_event *)p;
		p += sizeof *ie + ie->len;
		handle(w, ie, fn, ctx);
	}
	return 1;
}

long fswatch_max_watches(void)
{
	const char *files[] = { "/proc/sys/fs/inotify/max_user_watches", "/proc/sys/user/max_inotify_watches" };
	long limit = -1;
	for (size_t i = 0; i < 2; i++) {
		FILE *f = fopen(files[i], "re");
		long v;
		if (!f)
			continue;
		if (fscanf(f, "%ld", &v) == 1 && v >= 0 && (limit < 0 || v < limit))
			limit = v;
		fclose(f);
	}
	return limit;
}

void fswatch_free(struct fswatch *w)
{
	if (!w)
		return;
	size_t it = 0;
	struct fsw_dir *d;
	while ((d = fswatch_next(w, &it))) {
		if (d->data && w->release)
			w->release(d->data);
		free(d->path);
		free(d);
	}
	hashmap_release(&w->dirs);
	close(w->fd);
	free(w);
}
