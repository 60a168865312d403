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
/* A parent of a source: only its moving away matters (its deletion comes
 * after the source's). Nothing about its names: /tmp would flood us. */
#define GUARD_MASK (IN_MOVE_SELF | IN_DELETE_SELF | IN_ONLYDIR)
/* The nearest existing parent of a missing source: names appearing in it
 * may be the source (or a directory on the way to it) coming back. */
#define ANCHOR_MASK (GUARD_MASK | IN_CREATE | IN_MOVED_TO)
/* Rounds of fswatch_check when a source keeps appearing or vanishing
 * while it is checked (a parent directory created, then the source). */
#define CHECK_ROUNDS 16

/* One watched directory, in one or more roles. */
struct wdir {
	int wd;
	char *path;
	bool all;             /* a source tree: every name, subdirectories too */
	struct strlist names; /* otherwise only these files (single-file sources) */
	bool guard;           /* a parent of a source: its moving away is noticed */
	bool anchor;          /* the nearest parent of a missing source: watched for it */
	unsigned generation;  /* the last rescan that saw it */
	unsigned guard_pass, anchor_pass; /* the last update_guards that wanted each role */
};

/* What fswatch_add was given. */
struct root {
	char *path;
	bool is_dir;
	bool missing;
	dev_t dev; /* a directory's identity, to notice it replaced */
	ino_t ino;
	char *anchor; /* while missing: the parent directory watched for it */
};

struct fswatch {
	int fd;
	struct hashmap dirs; /* decimal wd -> struct wdir * */
	struct root *roots;
	size_t nroots;
	unsigned generation;
	unsigned pass;
	bool check_due; /* an event may mean a source went or came */
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
	size_t n = 0, it = 0;
	void *v;
	while (hashmap_next(&w->dirs, &it, NULL, &v)) {
		const struct wdir *d = v;
		n += d->all || d->names.n;
	}
	return n;
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
	for (size_t i = 0; i <= w->nroots; i++) {
		const char *root = i < w->nroots ? w->roots[i].path : extra;
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

/* Watch one directory (no recursion) for mask, added to what it asks for
 * already; the entry for it, existing or new (the caller sets its role).
 * NULL with err (errno kept) when the kernel refused. */
static struct wdir *watch_dir(struct fswatch *w, const char *path, uint32_t mask, char *err)
{
	/* IN_MASK_ADD: one directory may have several roles (single files in
	 * a source tree, the parent of another source), each its events. */
	int wd = inotify_add_watch(w->fd, path, mask | IN_MASK_ADD);
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
	return d;
}

/* Watch path and every directory below it. With report, files found are
 * appended to out as created (they appeared before the watch did), and
 * so are subdirectories. A directory that vanished meanwhile is skipped;
 * -1 with err on another failure (errno kept: ENOSPC is the limit). */
static int watch_tree(struct fswatch *w, const char *path, bool report, struct fsw_events *out, char *err)
{
	struct wdir *d = watch_dir(w, path, DIR_MASK, err);
	if (!d)
		return (errno == ENOENT || errno == ENOTDIR) ? 0 : -1;
	d->all = true;
	d->generation = w->generation;
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
	struct wdir *d = watch_dir(w, dir, FILE_DIR_MASK, err);
	free(dir);
	if (!d)
		return -1;
	d->generation = w->generation;
	if (!strlist_contains(&d->names, slash + 1))
		strlist_add(&d->names, slash + 1);
	return 0;
}

static void update_guards(struct fswatch *w);

int fswatch_add(struct fswatch *w, const char *path, char *err)
{
	struct stat sb;
	if (stat(path, &sb) < 0)
		return err_sys(err, "cannot watch '%s'", path);
	int rc = S_ISDIR(sb.st_mode) ? watch_tree(w, path, false, NULL, err) : watch_file(w, path, err);
	if (rc < 0 && errno == ENOSPC)
		return limit_error(w, path, path, err);
	if (rc < 0)
		return rc;
	w->roots = xrealloc(w->roots, (w->nroots + 1) * sizeof *w->roots);
	struct root *r = &w->roots[w->nroots++];
	memset(r, 0, sizeof *r);
	r->path = xstrdup(path);
	r->is_dir = S_ISDIR(sb.st_mode);
	r->dev = sb.st_dev;
	r->ino = sb.st_ino;
	update_guards(w);
	return 0;
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
	for (size_t i = 0; i < w->nroots; i++) {
		const struct root *r = &w->roots[i];
		if (r->missing)
			continue; /* the check that follows looks for it */
		const char *root = r->path;
		int rc = r->is_dir ? watch_tree(w, root, false, NULL, err) : watch_file(w, root, err);
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
		if (d->generation == w->generation || !(d->all || d->names.n))
			continue;
		if (d->guard || d->anchor) {
			d->all = false; /* the parent of a source all the same */
			strlist_clear(&d->names);
			continue;
		}
		stale = xrealloc(stale, (n + 1) * sizeof *stale);
		stale[n++] = d;
	}
	for (size_t i = 0; i < n; i++)
		drop_wdir(w, stale[i], true);
	free(stale);
	w->check_due = true; /* a source may have gone or come meanwhile */
}

/* ---- sources going and coming ---- */

/* The parent directory of an absolute path (fresh string), NULL for "/". */
static char *parent_of(const char *path)
{
	const char *slash = strrchr(path, '/');
	if (!slash || !strcmp(path, "/"))
		return NULL;
	return slash == path ? xstrdup("/") : xstrndup(path, (size_t)(slash - path));
}

/* The nearest parent of path that is a directory now (fresh string), or
 * NULL. */
static char *nearest_existing_parent(const char *path)
{
	char *p = parent_of(path);
	struct stat sb;
	while (p && !(stat(p, &sb) == 0 && S_ISDIR(sb.st_mode))) {
		char *up = parent_of(p);
		free(p);
		p = up;
	}
	return p;
}

/* Give the directory at path a guard or anchor role in this pass; a
 * directory that cannot be watched is skipped (a parent we may not read):
 * it only makes a move of it go unnoticed until the next check. */
static void mark(struct fswatch *w, const char *path, bool anchor)
{
	char err[ERR_LEN];
	struct wdir *d = watch_dir(w, path, anchor ? ANCHOR_MASK : GUARD_MASK, err);
	if (!d) {
		log_debug("%s", err);
		return;
	}
	if (anchor)
		d->anchor_pass = w->pass;
	else
		d->guard_pass = w->pass;
}

/* Guard every parent of dir (dir itself excluded). */
static void guard_parents(struct fswatch *w, const char *dir)
{
	for (char *p = parent_of(dir); p;) {
		mark(w, p, false);
		char *up = parent_of(p);
		free(p);
		p = up;
	}
}

/* Make the guard and anchor watches what the sources need now: the
 * parents of each source present, the nearest existing parent of each
 * missing one (and its parents); watches no longer needed go. */
static void update_guards(struct fswatch *w)
{
	w->pass++;
	for (size_t i = 0; i < w->nroots; i++) {
		struct root *r = &w->roots[i];
		free(r->anchor);
		r->anchor = NULL;
		if (!r->missing) {
			/* a single file: its directory is watched anyway */
			guard_parents(w, r->path);
			continue;
		}
		r->anchor = nearest_existing_parent(r->path);
		if (r->anchor) {
			mark(w, r->anchor, true);
			guard_parents(w, r->anchor);
		}
	}
	struct wdir **gone = NULL;
	size_t n = 0, it = 0;
	void *v;
	while (hashmap_next(&w->dirs, &it, NULL, &v)) {
		struct wdir *d = v;
		bool was_anchor = d->anchor;
		d->guard = d->guard_pass == w->pass;
		d->anchor = d->anchor_pass == w->pass;
		if (d->all || d->names.n)
			continue; /* its mask asks for more than an anchor's anyway */
		if (!d->guard && !d->anchor) {
			gone = xrealloc(gone, (n + 1) * sizeof *gone);
			gone[n++] = d;
		} else if (was_anchor && !d->anchor) {
			/* Back to a guard: stop the names' events (no
			 * IN_MASK_ADD: the mask is replaced). The path was
			 * marked in this pass, so it is this directory. */
			int wd = inotify_add_watch(w->fd, d->path, GUARD_MASK);
			if (wd >= 0 && wd != d->wd && !find_wd(w, wd))
				inotify_rm_watch(w->fd, wd);
		}
	}
	for (size_t i = 0; i < n; i++)
		drop_wdir(w, gone[i], true);
	free(gone);
}

/* What is at a source's path now: 1 the source as watched (a directory:
 * the same one), 0 another directory, -1 nothing of its kind; sb receives
 * its stat. */
static int root_state(const struct root *r, struct stat *sb)
{
	if (stat(r->path, sb) < 0 || !S_ISDIR(sb->st_mode) != !r->is_dir)
		return -1;
	return !r->is_dir || (sb->st_dev == r->dev && sb->st_ino == r->ino);
}

/* Bring one source's watches in line with what is at its path, reporting
 * FSW_GONE and FSW_BACK; true when its state changed. */
static bool update_root(struct fswatch *w, struct root *r, struct fsw_events *out)
{
	char err[ERR_LEN];
	struct stat sb, again;
	unsigned dir = r->is_dir ? FSW_DIR : 0;
	int state = root_state(r, &sb);
	if (!r->missing && state == 1)
		return false;
	bool changed = false;
	if (!r->missing) {
		/* Its watches, if it was moved or replaced, would report
		 * another directory's changes under its name. A single
		 * file's directory stays watched: it may come back there. */
		if (r->is_dir)
			drop_tree(w, r->path);
		r->missing = true;
		fsw_events_add(out, FSW_GONE | dir, r->path);
		changed = true;
	}
	if (state < 0)
		return changed;
	int rc = r->is_dir ? watch_tree(w, r->path, false, NULL, err) : watch_file(w, r->path, err);
	if (rc < 0 && errno != ENOENT && errno != ENOTDIR) {
		if (errno == ENOSPC)
			limit_error(w, r->path, NULL, err);
		log_warn("%s", err);
	}
	/* Still the one just watched? It may have gone again meanwhile. */
	if (stat(r->path, &again) < 0 || again.st_dev != sb.st_dev || again.st_ino != sb.st_ino) {
		if (r->is_dir)
			drop_tree(w, r->path);
		w->check_due = true;
		return changed;
	}
	r->dev = sb.st_dev;
	r->ino = sb.st_ino;
	r->missing = false;
	fsw_events_add(out, FSW_BACK | dir, r->path);
	return true;
}

/* A missing source appeared, or the nearest parent that exists is no
 * longer the one watched (created meanwhile, before its watch was in
 * place): another round is due. */
static bool anchors_stale(const struct fswatch *w)
{
	for (size_t i = 0; i < w->nroots; i++) {
		const struct root *r = &w->roots[i];
		struct stat sb;
		if (!r->missing)
			continue;
		if (stat(r->path, &sb) == 0)
			return true;
		char *now = nearest_existing_parent(r->path);
		bool moved = (now == NULL) != (r->anchor == NULL) || (now && strcmp(now, r->anchor));
		free(now);
		if (moved)
			return true;
	}
	return false;
}

size_t fswatch_check(struct fswatch *w, struct fsw_events *out)
{
	for (int round = 0; round < CHECK_ROUNDS; round++) {
		bool changed = false;
		w->check_due = false;
		for (size_t i = 0; i < w->nroots; i++)
			changed |= update_root(w, &w->roots[i], out);
		update_guards(w);
		if (!changed && !w->check_due && !anchors_stale(w))
			break;
	}
	w->check_due = false;
	size_t missing = 0;
	for (size_t i = 0; i < w->nroots; i++)
		missing += w->roots[i].missing;
	return missing;
}

bool fswatch_intact(const struct fswatch *w)
{
	for (size_t i = 0; i < w->nroots; i++) {
		struct stat sb;
		if (w->roots[i].missing || root_state(&w->roots[i], &sb) != 1)
			return false;
	}
	return true;
}

/* path is one of the sources given to fswatch_add. */
static bool is_root(const struct fswatch *w, const char *path)
{
	for (size_t i = 0; i < w->nroots; i++)
		if (!strcmp(w->roots[i].path, path))
			return true;
	return false;
}

/* Turn one kernel event into events for out. */
static void handle(struct fswatch *w, const struct inotify_event *ie, struct fsw_events *out)
{
	char err[ERR_LEN];
	struct wdir *d = find_wd(w, ie->wd);
	if (!d)
		return; /* a watch already forgotten */
	/* A source, a directory holding one, or a parent of one going away
	 * (a subdirectory's parent reports it); fswatch_check finds out
	 * which source it means. */
	bool matters = d->guard || d->anchor || d->names.n || is_root(w, d->path);
	if (ie->mask & IN_IGNORED) {
		w->check_due = w->check_due || matters;
		drop_wdir(w, d, false);
		return;
	}
	if (ie->mask & (IN_DELETE_SELF | IN_MOVE_SELF)) {
		w->check_due = w->check_due || matters;
		return;
	}
	if (!ie->len || !ie->name[0])
		return;
	if (d->anchor)
		w->check_due = true; /* a missing source, or a parent of it, may be back */
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
	if (!d->all && (flags & (FSW_CREATED | FSW_REMOVED)))
		w->check_due = true; /* a single-file source may have gone or come */

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
		if (w->check_due)
			fswatch_check(w, out);
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
	for (size_t i = 0; i < w->nroots; i++) {
		free(w->roots[i].path);
		free(w->roots[i].anchor);
	}
	free(w->roots);
	close(w->fd);
	free(w);
}
