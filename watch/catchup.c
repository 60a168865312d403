/* catchup.c - the sources' changes since the tree's last run, from the
 * files' times (see catchup.h). */
#include "catchup.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/fswatch.h"
#include "base/hashmap.h"
#include "base/xalloc.h"
#include "scan.h"

struct walk {
	struct timespec after; /* since, less the slack */
	bool (*skip)(void *arg, const char *path);
	void *arg;
	struct changes *out;
};

static bool later(const struct timespec *a, const struct timespec *b)
{
	return a->tv_sec > b->tv_sec || (a->tv_sec == b->tv_sec && a->tv_nsec > b->tv_nsec);
}

static bool changed_since(const struct stat *sb, const struct timespec *after)
{
	return later(&sb->st_ctim, after) || later(&sb->st_mtim, after);
}

/* Whether a directory whose times changed is new: inotify tells of a
 * directory only when it comes or goes, not when a name in it does (its
 * files' own times say that). Without a birth time (a file system that
 * keeps none) it may be new. */
static bool dir_new(const struct walk *w, int dirfd, const char *name)
{
	struct statx sx;
	if (statx(dirfd, name, AT_SYMLINK_NOFOLLOW, STATX_BTIME, &sx) < 0 || !(sx.stx_mask & STATX_BTIME))
		return true;
	struct timespec born = { (time_t)sx.stx_btime.tv_sec, (long)sx.stx_btime.tv_nsec };
	return later(&born, &w->after);
}

/* Where walk_dir is: the walk, the directory's path, and whether a
 * render wrote something directly in it. */
struct walk_at {
	struct walk *w;
	const char *path;
	bool written;
};

static bool walk_dir(struct walk *w, int dirfd, const char *path);

/* One entry of a directory walk_dir walks: a changed file, a new
 * directory, or one to walk in its turn. */
static void walk_entry(void *arg, int dirfd, const char *name, const struct stat *sb)
{
	struct walk_at *at = arg;
	struct walk *w = at->w;
	char *child = xasprintf("%s/%s", strcmp(at->path, "/") ? at->path : "", name);
	if (w->skip(w->arg, child)) {
		at->written = true;
	} else if (S_ISDIR(sb->st_mode)) {
		int sub = openat(dirfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		bool wrote_in = sub >= 0 && walk_dir(w, sub, child);
		if (!wrote_in && changed_since(sb, &w->after) && dir_new(w, dirfd, name))
			changes_add(w->out, child, FSW_CHANGED | FSW_CREATED | FSW_DIR);
	} else if (changed_since(sb, &w->after)) {
		changes_add(w->out, child, FSW_CHANGED | FSW_CREATED);
	}
	free(child);
}

/* Walk the directory path (open as dirfd, closed here; an entry gone
 * meanwhile has its event coming); true when a render wrote something
 * directly in it. */
static bool walk_dir(struct walk *w, int dirfd, const char *path)
{
	struct walk_at at = { w, path, false };
	scan_each(dirfd, walk_entry, &at);
	return at.written;
}

/* path is dir or below it. */
static bool path_under(const char *path, const char *dir)
{
	size_t n = strlen(dir);
	return !strncmp(path, dir, n) && (path[n] == '/' || path[n] == '\0' || (n == 1 && dir[0] == '/'));
}

static bool under_sources(const struct strlist *sources, const char *path)
{
	for (size_t i = 0; i < sources->n; i++)
		if (path_under(path, sources->items[i]))
			return true;
	return false;
}

/* A directory of recorded paths (its path ending in '/'), and the sets
 * of it manifest_each_set gives: what the check for deleted dependencies
 * goes through. */
struct recorded {
	struct walk *w;
	const struct strlist *sources;
	struct hashmap seen; /* the paths checked */
};

/* Whether a path of directory dir ("/d/") can be under a source: dir is
 * below one, or one is in dir or below it (a file source). */
static bool dir_near_sources(const struct strlist *sources, const char *dir)
{
	size_t n = strlen(dir);
	for (size_t i = 0; i < sources->n; i++) {
		const char *src = sources->items[i];
		if (!strncmp(src, dir, n) || path_under(dir, src))
			return true;
	}
	return false;
}

/* Whether dir ("/d/") is near the sources and changed since (or is gone):
 * one whose times are older than since lost no entry, and most paths
 * share a few directories (a stat each, not one per path). */
static bool recorded_dir_wanted(void *arg, const char *dir)
{
	struct recorded *r = arg;
	if (!dir_near_sources(r->sources, dir))
		return false;
	size_t n = strlen(dir);
	char *path = xstrndup(dir, n > 1 && dir[n - 1] == '/' ? n - 1 : n);
	struct stat sb;
	bool changed = stat(path, &sb) < 0 || changed_since(&sb, &r->w->after);
	free(path);
	return changed;
}

/* A recorded path, in a directory that changed since, that is gone now:
 * removed since. */
static void check_gone(struct walk *w, const char *path, bool dir)
{
	struct stat sb;
	if (lstat(path, &sb) == 0 || errno != ENOENT || w->skip(w->arg, path))
		return;
	changes_add(w->out, path, FSW_CHANGED | FSW_REMOVED | (dir ? FSW_DIR : 0));
}

/* Each name of a set of a changed directory: checked once. */
static void recorded_set(void *arg, const char *dir, char kind, const char *names)
{
	struct recorded *r = arg;
	const char *p = names;
	for (;;) {
		const char *nl = strchr(p, '\n');
		size_t len = nl ? (size_t)(nl - p) : strlen(p);
		char *path = xasprintf("%s%.*s", dir, (int)len, p);
		if (under_sources(r->sources, path) && !hashmap_get(&r->seen, path)) {
			hashmap_put(&r->seen, path, (void *)1);
			check_gone(r->w, path, kind == 'L' || kind == 'C');
		}
		free(path);
		if (!nl)
			break;
		p = nl + 1;
	}
}

int catchup_changes(const struct strlist *sources, struct tree *t, const struct timespec *since,
		    bool (*skip)(void *arg, const char *path), void *arg, struct changes *out, char *err)
{
	struct walk w = { *since, skip, arg, out };
	long long ns = (long long)w.after.tv_nsec - CATCHUP_SLACK_MS * 1000000LL;
	while (ns < 0) {
		ns += 1000000000LL;
		w.after.tv_sec--;
	}
	w.after.tv_nsec = (long)ns;

	for (size_t i = 0; i < sources->n; i++) {
		const char *src = sources->items[i];
		struct stat sb;
		if (lstat(src, &sb) < 0)
			continue; /* watch says a source is missing */
		if (!S_ISDIR(sb.st_mode)) {
			if (changed_since(&sb, &w.after) && !skip(arg, src))
				changes_add(out, src, FSW_CHANGED | FSW_CREATED);
			continue;
		}
		int fd = open(src, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		if (fd >= 0)
			walk_dir(&w, fd, src);
	}

	/* Each recorded path once, where its directory changed: read from
	 * the tree's sets, directory by directory, not page by page. Not
	 * the A ones: looked for and not found then, their absence now is
	 * no change (their creation since is a file the walk above finds). */
	struct recorded r = { &w, sources, HASHMAP_INIT };
	int rc = manifest_each_set(t, "RELC", recorded_dir_wanted, recorded_set, &r, err);
	hashmap_release(&r.seen);
	return rc;
}
