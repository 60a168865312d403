/* inotify.c - recursive watching of the sources through the kernel's
 * inotify API (see inotify.h). */
#include "inotify.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/inotify.h>
#include <sys/stat.h>
#include <unistd.h>

#include "buf.h"
#include "hashmap.h"
#include "log.h"
#include "scan.h"
#include "xalloc.h"

/* What a directory watch asks for: names written, appearing and going
 * away, and the directory itself going away. IN_EXCL_UNLINK: nothing
 * about files already unlinked (a temp file still open). */
#define DIR_MASK (IN_CLOSE_WRITE | IN_CREATE | IN_DELETE | IN_MOVED_FROM | IN_MOVED_TO | \
		  IN_DELETE_SELF | IN_MOVE_SELF | IN_ONLYDIR | IN_EXCL_UNLINK)
/* A single watched file may be written by a program that keeps it open
 * (a database): its modifications count too, not only its close. */
#define FILE_DIR_MASK (DIR_MASK | IN_MODIFY)

/* One watched directory. */
struct wdir {
	int wd;
	char *path;
	bool all;             /* a source tree: every name, subdirectories too */
	struct strlist names; /* otherwise only these files (single-file sources) */
	unsigned generation;  /* the last rescan that saw it */
};

struct fswatch {
	int fd;
	struct hashmap dirs;   /* decimal wd -> struct wdir * */
	struct strlist roots;  /* what fswatch_add was given, for rescans and counts */
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

struct fswatch *fswatch_new(char *err)
{
	int fd = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
	if (fd < 0) {
		err_sys(err, "cannot start inotify");
		return NULL;
	}
	struct fswatch *w = xcalloc(1, sizeof *w);
	w->fd = fd;
	return w;
}

int fswatch_fd(const struct fswatch *w)
{
	return w->fd;
}

size_t fswatch_count(const struct fswatch *w)
{
	return w->dirs.count;
}

/* The map key of a watch descriptor. */
static void wd_key(char key[16], int wd)
{
	snprintf(key, 16, "%d", wd);
}

/* The directory of a watch descriptor, or NULL. */
static struct wdir *find_wd(const struct fswatch *w, int wd)
{
	char key[16];
	wd_key(key, wd);
	return hashmap_get(&w->dirs, key);
}

/* Free one entry (not its map slot). */
static void free_wdir(struct wdir *d)
{
	free(d->path);
	strlist_clear(&d->names);
	free(d);
}

/* Forget a watch (the kernel already dropped it, or is told to). */
static void drop_wdir(struct fswatch *w, struct wdir *d, bool tell_kernel)
{
	char key[16];
	wd_key(key, d->wd);
	hashmap_remove(&w->dirs, key);
	if (tell_kernel)
		inotify_rm_watch(w->fd, d->wd);
	free_wdir(d);
}

/* The smaller of the kernel's two views of the limit: the global sysctl,
 * and the user namespace's own (lower inside a container); -1 unknown. */
static long read_limit(void)
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

char *fswatch_limit_message(const char *path, long limit, long needed)
{
	struct buf b = BUF_INIT;
	buf_addf(&b, "cannot watch '%s': the inotify watch limit is reached", path);
	if (limit >= 0)
		buf_addf(&b, " (fs.inotify.max_user_watches = %ld)", limit);
	else
		buf_adds(&b, " (fs.inotify.max_user_watches)");
	buf_addf(&b, "; the sources need %ld watch%s (one per directory) besides those other programs hold",
		 needed, needed == 1 ? "" : "es");
	if (limit >= 0)
		buf_addf(&b, ": raise it, e.g. sysctl fs.inotify.max_user_watches=%ld", limit + needed);
	else
		buf_adds(&b, ": raise it with sysctl");
	return buf_detach(&b, NULL);
}

/* Watches the sources need: one per directory of a tree, one for the
 * directory of a single file (extra: a root not added yet). */
static long dirs_needed(const struct fswatch *w, const char *extra)
{
	long n = 0;
	for (size_t i = 0; i <= w->roots.n; i++) {
		const char *root = i < w->roots.n ? w->roots.items[i] : extra;
		struct scan_stats st;
		if (!root)
			continue;
		memset(&st, 0, sizeof st);
		scan_path(root, &st);
		n += st.dirs ? st.dirs : 1;
	}
	return n;
}

/* Put the watch-limit message for path into err; returns -1. */
static int limit_error(const struct fswatch *w, const char *path, const char *new_root, char *err)
{
	char *msg = fswatch_limit_message(path, read_limit(), dirs_needed(w, new_root));
	err_set(err, "%s", msg);
	free(msg);
	return -1;
}

/* Watch one directory (no recursion); the entry for it, existing or new.
 * NULL with err (errno kept) when the kernel refused. */
static struct wdir *watch_dir(struct fswatch *w, const char *path, bool all, char *err)
{
	/* IN_MASK_ADD: a directory holding single files may also be in a
	 * source tree, and then its watch asks for both kinds of event. */
	uint32_t mask = (all ? DIR_MASK : FILE_DIR_MASK) | IN_MASK_ADD;
	int wd = inotify_add_watch(w->fd, path, mask);
	if (wd < 0) {
		err_sys(err, "cannot watch '%s'", path);
		return NULL;
	}
	struct wdir *d = find_wd(w, wd);
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
	d->all = d->all || all;
	d->generation = w->generation;
	return d;
}

/* Watch path and every directory below it. With report, files found are
 * appended to out as created (they appeared before the watch did), and
 * so are subdirectories. A directory that vanished meanwhile is skipped;
 * -1 with err on another failure (errno kept: ENOSPC is the limit). */
static int watch_tree(struct fswatch *w, const char *path, bool report, struct fsw_events *out, char *err)
{
	if (!watch_dir(w, path, true, err))
		return (errno == ENOENT || errno == ENOTDIR) ? 0 : -1;
	DIR *dir = opendir(path);
	if (!dir)
		return 0; /* gone, or unreadable: its events still come */
	int rc = 0;
	struct dirent *de;
	while (rc == 0 && (de = readdir(dir))) {
		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		char *sub = xasprintf("%s/%s", path, de->d_name);
		bool is_dir = de->d_type == DT_DIR;
		if (de->d_type == DT_UNKNOWN) {
			struct stat sb;
			is_dir = lstat(sub, &sb) == 0 && S_ISDIR(sb.st_mode);
		}
		if (report)
			fsw_events_add(out, FSW_CREATED | (is_dir ? FSW_DIR : 0), sub);
		if (is_dir)
			rc = watch_tree(w, sub, report, out, err);
		free(sub);
	}
	int saved = errno;
	closedir(dir);
	errno = saved;
	return rc;
}

/* Watch a single file through its directory. */
static int watch_file(struct fswatch *w, const char *path, char *err)
{
	const char *slash = strrchr(path, '/');
	if (!slash || !slash[1])
		return err_set(err, "cannot watch '%s': not an absolute file path", path);
	char *dir = slash == path ? xstrdup("/") : xstrndup(path, (size_t)(slash - path));
	struct wdir *d = watch_dir(w, dir, false, err);
	free(dir);
	if (!d)
		return -1;
	if (!strlist_contains(&d->names, slash + 1))
		strlist_add(&d->names, slash + 1);
	return 0;
}

int fswatch_add(struct fswatch *w, const char *path, char *err)
{
	struct stat sb;
	if (stat(path, &sb) < 0)
		return err_sys(err, "cannot watch '%s'", path);
	int rc = S_ISDIR(sb.st_mode) ? watch_tree(w, path, false, NULL, err) : watch_file(w, path, err);
	if (rc < 0 && errno == ENOSPC)
		return limit_error(w, path, path, err);
	if (rc == 0)
		strlist_add(&w->roots, path);
	return rc;
}

/* A directory went away or moved: forget the watches at and below it. */
static void drop_tree(struct fswatch *w, const char *path)
{
	size_t len = strlen(path);
	struct wdir **gone = NULL;
	size_t n = 0, it = 0;
	void *v;
	while (hashmap_next(&w->dirs, &it, NULL, &v)) {
		struct wdir *d = v;
		if (!strncmp(d->path, path, len) && (d->path[len] == '\0' || d->path[len] == '/') && d->all) {
			gone = xrealloc(gone, (n + 1) * sizeof *gone);
			gone[n++] = d;
		}
	}
	for (size_t i = 0; i < n; i++)
		drop_wdir(w, gone[i], true);
	free(gone);
}

/* After an overflow: watch every directory of the sources again (the
 * events of those created meanwhile were lost) and drop the watches of
 * directories no longer there. */
static void rescan(struct fswatch *w)
{
	char err[ERR_LEN];
	w->generation++;
	for (size_t i = 0; i < w->roots.n; i++) {
		const char *root = w->roots.items[i];
		struct stat sb;
		if (stat(root, &sb) < 0)
			continue;
		int rc = S_ISDIR(sb.st_mode) ? watch_tree(w, root, false, NULL, err) : watch_file(w, root, err);
		if (rc < 0) {
			if (errno == ENOSPC)
				limit_error(w, root, NULL, err);
			log_warn("%s", err);
		}
	}
	struct wdir **stale = NULL;
	size_t n = 0, it = 0;
	void *v;
	while (hashmap_next(&w->dirs, &it, NULL, &v)) {
		struct wdir *d = v;
		if (d->generation != w->generation) {
			stale = xrealloc(stale, (n + 1) * sizeof *stale);
			stale[n++] = d;
		}
	}
	for (size_t i = 0; i < n; i++)
		drop_wdir(w, stale[i], true);
	free(stale);
}

/* path is one of the sources given to fswatch_add. */
static bool is_root(const struct fswatch *w, const char *path)
{
	return strlist_contains(&w->roots, path);
}

/* Turn one kernel event into events for out. */
static void handle(struct fswatch *w, const struct inotify_event *ie, struct fsw_events *out)
{
	char err[ERR_LEN];
	struct wdir *d = find_wd(w, ie->wd);
	if (!d)
		return; /* a watch already forgotten */
	if (ie->mask & IN_IGNORED) {
		drop_wdir(w, d, false);
		return;
	}
	if (ie->mask & (IN_DELETE_SELF | IN_MOVE_SELF)) {
		/* A subdirectory's parent reports it; a source tree itself
		 * going away is reported here. */
		if (d->all && is_root(w, d->path)) {
			fsw_events_add(out, FSW_REMOVED | FSW_DIR, d->path);
			if (ie->mask & IN_MOVE_SELF)
				drop_wdir(w, d, true);
		}
		return;
	}
	if (!ie->len || !ie->name[0])
		return;
	if (!d->all && !strlist_contains(&d->names, ie->name))
		return; /* a neighbour of a single watched file */

	unsigned flags = 0;
	if (ie->mask & (IN_CLOSE_WRITE | IN_MODIFY))
		flags |= FSW_CHANGED;
	if (ie->mask & (IN_CREATE | IN_MOVED_TO))
		flags |= FSW_CREATED;
	if (ie->mask & (IN_DELETE | IN_MOVED_FROM))
		flags |= FSW_REMOVED;
	if (ie->mask & IN_ISDIR)
		flags |= FSW_DIR;
	if (!flags)
		return;

	char *path = strcmp(d->path, "/") ? xasprintf("%s/%s", d->path, ie->name) : xasprintf("/%s", ie->name);
	bool recursive = d->all;
	fsw_events_add(out, flags, path); /* d may be freed from here on */
	if (recursive && (flags & FSW_DIR)) {
		if (flags & FSW_REMOVED)
			drop_tree(w, path);
		if (flags & FSW_CREATED) {
			if (watch_tree(w, path, true, out, err) < 0) {
				if (errno == ENOSPC)
					limit_error(w, path, NULL, err);
				log_warn("%s", err);
			}
		}
	}
	free(path);
}

int fswatch_read(struct fswatch *w, struct fsw_events *out, char *err)
{
	/* Aligned for struct inotify_event, large enough for many. */
	char buf[65536] __attribute__((aligned(__alignof__(struct inotify_event))));
	for (;;) {
		ssize_t n = read(w->fd, buf, sizeof buf);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			if (errno == EAGAIN)
				return 0;
			return err_sys(err, "cannot read inotify events");
		}
		if (n == 0)
			return 0;
		for (char *p = buf; p < buf + n;) {
			const struct inotify_event *ie = (const struct inotify_event *)p;
			p += sizeof *ie + ie->len;
			if (ie->mask & IN_Q_OVERFLOW) {
				fsw_events_add(out, FSW_OVERFLOW, NULL);
				rescan(w);
				continue;
			}
			handle(w, ie, out);
		}
	}
}

void fswatch_free(struct fswatch *w)
{
	if (!w)
		return;
	size_t it = 0;
	void *v;
	while (hashmap_next(&w->dirs, &it, NULL, &v))
		free_wdir(v);
	hashmap_release(&w->dirs);
	strlist_clear(&w->roots);
	close(w->fd);
	free(w);
}
