/* srcwatch.c - the sources watched for changes, directory trees and single
 * files, gone and back (see srcwatch.h), on lib/base/fswatch.h. */
#include "srcwatch.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "base/buf.h"
#include "base/log.h"
#include "scan.h"
#include "base/xalloc.h"

/* What a directory of a source tree asks for: names written, appearing
 * and going away, and the directory itself going away; and every write,
 * not only the close: a file rewritten in place (O_TRUNC, then writes)
 * is empty or half written from its first write on, and a save under
 * way must be seen as soon as it starts (settle.h, stale.h). */
#define DIR_WANT (FSW_WATCH_WRITES | FSW_WATCH_MODIFY | FSW_WATCH_NAMES | FSW_WATCH_SELF)
/* A single watched file may be written by a program that keeps it open
 * (a database): its modifications count too, not only its close. */
#define FILE_DIR_WANT (DIR_WANT | FSW_WATCH_MODIFY)
/* A parent of a source: only its moving away matters (its deletion comes
 * after the source's). Nothing about its names: /tmp would flood us. */
#define GUARD_WANT FSW_WATCH_SELF
/* The nearest existing parent of a missing source: names appearing in it
 * may be the source (or a directory on the way to it) coming back. */
#define ANCHOR_WANT (GUARD_WANT | FSW_WATCH_NEW_NAMES)
/* Rounds of srcwatch_check when a source keeps appearing or vanishing
 * while it is checked (a parent directory created, then the source). */
#define CHECK_ROUNDS 16

/* The roles of one watched directory besides being part of a source tree
 * (fsw_dir.tree): its data. */
struct roles {
	struct strlist names; /* the single-file sources it holds */
	bool guard;           /* a parent of a source: its moving away is noticed */
	bool anchor;          /* the nearest parent of a missing source: watched for it */
	unsigned guard_pass, anchor_pass; /* the last update_guards that wanted each role */
};

/* What srcwatch_add was given. */
struct root {
	char *path;
	bool is_dir;
	bool missing;
	dev_t dev; /* a directory's identity, to notice it replaced */
	ino_t ino;
	char *anchor; /* while missing: the parent directory watched for it */
};

struct srcwatch {
	struct fswatch *fs;
	struct root *roots;
	size_t nroots;
	unsigned pass;
	bool check_due;           /* an event may mean a source went or came */
	struct fsw_events *out;   /* during srcwatch_read: where events go */
};

static void release_roles(void *data)
{
	struct roles *r = data;
	strlist_clear(&r->names);
	free(r);
}

/* The roles of d (made empty the first time). */
static struct roles *roles(struct fsw_dir *d)
{
	if (!d->data)
		d->data = xcalloc(1, sizeof(struct roles));
	return d->data;
}

/* d holds single-file sources. */
static bool has_names(const struct fsw_dir *d)
{
	const struct roles *r = d->data;
	return r && r->names.n;
}

struct srcwatch *srcwatch_new(char *err)
{
	struct fswatch *fs = fswatch_new(release_roles, err);
	if (!fs)
		return NULL;
	struct srcwatch *w = xcalloc(1, sizeof *w);
	w->fs = fs;
	return w;
}

int srcwatch_fd(const struct srcwatch *w)
{
	return fswatch_fd(w->fs);
}

size_t srcwatch_count(const struct srcwatch *w)
{
	size_t n = 0, it = 0;
	struct fsw_dir *d;
	while ((d = fswatch_next(w->fs, &it)))
		n += d->tree || has_names(d);
	return n;
}

char *srcwatch_limit_message(const char *path, long limit, long needed)
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
static long dirs_needed(const struct srcwatch *w, const char *extra)
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
static int limit_error(const struct srcwatch *w, const char *path, const char *new_root, char *err)
{
	char *msg = srcwatch_limit_message(path, fswatch_max_watches(), dirs_needed(w, new_root));
	err_set(err, "%s", msg);
	free(msg);
	return -1;
}

/* Watch path and every directory below it. With report, what is found
 * is appended to report as created (it appeared before the watch did).
 * A directory that vanished meanwhile is skipped; -1 with err on another
 * failure (errno kept: ENOSPC is the limit). */
static int watch_tree(struct srcwatch *w, const char *path, struct fsw_events *report, char *err)
{
	const struct fsw_walk walk = { DIR_WANT, NULL, NULL, NULL, report };
	return fswatch_add_tree(w->fs, path, &walk, err);
}

/* Watch a single file through its directory. */
static int watch_file(struct srcwatch *w, const char *path, char *err)
{
	const char *slash = strrchr(path, '/');
	if (!slash || !slash[1])
		return err_set(err, "cannot watch '%s': not an absolute file path", path);
	char *dir = slash == path ? xstrdup("/") : xstrndup(path, (size_t)(slash - path));
	struct fsw_dir *d = fswatch_watch(w->fs, dir, FILE_DIR_WANT, err);
	free(dir);
	if (!d)
		return -1;
	struct roles *r = roles(d);
	if (!strlist_contains(&r->names, slash + 1))
		strlist_add(&r->names, slash + 1);
	return 0;
}

static void update_guards(struct srcwatch *w);

int srcwatch_add(struct srcwatch *w, const char *path, char *err)
{
	struct stat sb;
	if (stat(path, &sb) < 0)
		return err_sys(err, "cannot watch '%s'", path);
	int rc = S_ISDIR(sb.st_mode) ? watch_tree(w, path, NULL, err) : watch_file(w, path, err);
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

/* After an overflow: watch every directory of the sources again (the
 * events of those created meanwhile were lost) and drop the watches of
 * directories no longer there. */
static void rescan(struct srcwatch *w)
{
	char err[ERR_LEN];
	unsigned generation = fswatch_next_generation(w->fs);
	for (size_t i = 0; i < w->nroots; i++) {
		const struct root *r = &w->roots[i];
		if (r->missing)
			continue; /* the check that follows looks for it */
		const char *root = r->path;
		int rc = r->is_dir ? watch_tree(w, root, NULL, err) : watch_file(w, root, err);
		if (rc < 0) {
			if (errno == ENOSPC)
				limit_error(w, root, NULL, err);
			log_warn("%s", err);
		}
	}
	struct fsw_dir **stale = NULL;
	size_t n = 0, it = 0;
	struct fsw_dir *d;
	while ((d = fswatch_next(w->fs, &it))) {
		struct roles *r = d->data;
		if (d->seen == generation || !(d->tree || has_names(d)))
			continue;
		if (r && (r->guard || r->anchor)) {
			d->tree = false; /* the parent of a source all the same */
			strlist_clear(&r->names);
			continue;
		}
		stale = xrealloc(stale, (n + 1) * sizeof *stale);
		stale[n++] = d;
	}
	for (size_t i = 0; i < n; i++)
		fswatch_unwatch(w->fs, stale[i]);
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
static void mark(struct srcwatch *w, const char *path, bool anchor)
{
	char err[ERR_LEN];
	struct fsw_dir *d = fswatch_watch(w->fs, path, anchor ? ANCHOR_WANT : GUARD_WANT, err);
	if (!d) {
		log_debug("%s", err);
		return;
	}
	if (anchor)
		roles(d)->anchor_pass = w->pass;
	else
		roles(d)->guard_pass = w->pass;
}

/* Guard every parent of dir (dir itself excluded). */
static void guard_parents(struct srcwatch *w, const char *dir)
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
static void update_guards(struct srcwatch *w)
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
	struct fsw_dir **gone = NULL;
	size_t n = 0, it = 0;
	struct fsw_dir *d;
	while ((d = fswatch_next(w->fs, &it))) {
		struct roles *r = roles(d);
		bool was_anchor = r->anchor;
		r->guard = r->guard_pass == w->pass;
		r->anchor = r->anchor_pass == w->pass;
		if (d->tree || r->names.n)
			continue; /* its mask asks for more than an anchor's anyway */
		if (!r->guard && !r->anchor) {
			gone = xrealloc(gone, (n + 1) * sizeof *gone);
			gone[n++] = d;
		} else if (was_anchor && !r->anchor) {
			/* Back to a guard: stop the names' events. The path
			 * was marked in this pass, so it is this directory. */
			fswatch_narrow(w->fs, d, GUARD_WANT);
		}
	}
	for (size_t i = 0; i < n; i++)
		fswatch_unwatch(w->fs, gone[i]);
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
static bool update_root(struct srcwatch *w, struct root *r, struct fsw_events *out)
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
			fswatch_drop_tree(w->fs, r->path);
		r->missing = true;
		fsw_events_add(out, FSW_GONE | dir, r->path);
		changed = true;
	}
	if (state < 0)
		return changed;
	int rc = r->is_dir ? watch_tree(w, r->path, NULL, err) : watch_file(w, r->path, err);
	if (rc < 0 && errno != ENOENT && errno != ENOTDIR) {
		if (errno == ENOSPC)
			limit_error(w, r->path, NULL, err);
		log_warn("%s", err);
	}
	/* Still the one just watched? It may have gone again meanwhile. */
	if (stat(r->path, &again) < 0 || again.st_dev != sb.st_dev || again.st_ino != sb.st_ino) {
		if (r->is_dir)
			fswatch_drop_tree(w->fs, r->path);
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
static bool anchors_stale(const struct srcwatch *w)
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

size_t srcwatch_check(struct srcwatch *w, struct fsw_events *out)
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

bool srcwatch_intact(const struct srcwatch *w)
{
	for (size_t i = 0; i < w->nroots; i++) {
		struct stat sb;
		if (w->roots[i].missing || root_state(&w->roots[i], &sb) != 1)
			return false;
	}
	return true;
}

/* path is one of the sources given to srcwatch_add. */
static bool is_root(const struct srcwatch *w, const char *path)
{
	for (size_t i = 0; i < w->nroots; i++)
		if (!strcmp(w->roots[i].path, path))
			return true;
	return false;
}

/* Turn one event of fswatch into events for w->out (an fswatch_fn). */
static void handle(void *ctx, struct fsw_dir *d, const char *name, unsigned flags)
{
	struct srcwatch *w = ctx;
	struct fsw_events *out = w->out;
	char err[ERR_LEN];
	if (flags & FSW_OVERFLOW) {
		fsw_events_add(out, FSW_OVERFLOW, NULL);
		rescan(w);
		return;
	}
	struct roles *r = roles(d);
	/* A source, a directory holding one, or a parent of one going away
	 * (a subdirectory's parent reports it); srcwatch_check finds out
	 * which source it means. */
	bool matters = r->guard || r->anchor || r->names.n || is_root(w, d->path);
	if (flags & (FSW_IGNORED | FSW_SELF)) {
		w->check_due = w->check_due || matters;
		return; /* FSW_IGNORED: fswatch forgets d */
	}
	if (r->anchor)
		w->check_due = true; /* a missing source, or a parent of it, may be back */
	if (!d->tree && !strlist_contains(&r->names, name))
		return; /* a neighbour of a single watched file */
	if (!d->tree && (flags & (FSW_CREATED | FSW_REMOVED)))
		w->check_due = true; /* a single-file source may have gone or come */

	char *path = fswatch_path(d, name);
	bool recursive = d->tree;
	fsw_events_add(out, flags, path); /* d may be freed from here on */
	if (recursive && (flags & FSW_DIR)) {
		const struct fsw_walk walk = { DIR_WANT, NULL, NULL, NULL, out };
		if (fswatch_follow(w->fs, path, flags, &walk, err) < 0) {
			if (errno == ENOSPC)
				limit_error(w, path, NULL, err);
			log_warn("%s", err);
		}
	}
	free(path);
}

int srcwatch_read(struct srcwatch *w, struct fsw_events *out, char *err)
{
	int rc;
	w->out = out;
	while ((rc = fswatch_read(w->fs, handle, w, err)) > 0) {
		if (w->check_due)
			srcwatch_check(w, out);
	}
	w->out = NULL;
	return rc;
}

void srcwatch_free(struct srcwatch *w)
{
	if (!w)
		return;
	fswatch_free(w->fs);
	for (size_t i = 0; i < w->nroots; i++) {
		free(w->roots[i].path);
		free(w->roots[i].anchor);
	}
	free(w->roots);
	free(w);
}
