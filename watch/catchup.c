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

/* dir_changed's answers (non-NULL: NULL is "not asked yet"). */
static char dir_changed_mark, dir_unchanged_mark;
#define DIR_CHANGED ((void *)&dir_changed_mark)
#define DIR_UNCHANGED ((void *)&dir_unchanged_mark)

/* Whether directory dir changed since (or is gone): asked once per
 * directory, remembered in changed_dirs. */
static bool dir_changed(struct walk *w, struct hashmap *changed_dirs, const char *dir)
{
	void *known = hashmap_get(changed_dirs, dir);
	if (known)
		return known == DIR_CHANGED;
	struct stat sb;
	bool changed = stat(dir, &sb) < 0 || changed_since(&sb, &w->after);
	hashmap_put(changed_dirs, dir, changed ? DIR_CHANGED : DIR_UNCHANGED);
	return changed;
}

/* Whether the directory holding path changed since (or is gone): one
 * whose times are older than since lost no entry, and most paths share a
 * few directories (a stat each, not one per path). */
static bool parent_changed(struct walk *w, struct hashmap *changed_dirs, const char *path)
{
	const char *slash = strrchr(path, '/');
	size_t len = slash && slash != path ? (size_t)(slash - path) : 0;
	char parent[PATH_MAX];
	if (len >= sizeof parent)
		return true; /* cannot be asked: look at the path itself */
	memcpy(parent, len ? path : "/", len ? len : 1);
	parent[len ? len : 1] = '\0';
	return dir_changed(w, changed_dirs, parent);
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

void catchup_changes(const struct strlist *sources, const struct manifest *m, const struct timespec *since,
		     bool (*skip)(void *arg, const char *path), void *arg, struct changes *out)
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

	/* Each recorded path once, where its directory changed. Not the A
	 * ones: looked for and not found then, their absence now is no
	 * change (their creation since is a file the walk above finds). */
	struct hashmap seen = HASHMAP_INIT, changed_dirs = HASHMAP_INIT;
	size_t it = 0;
	void *v;
	while (hashmap_next(&m->entries, &it, NULL, &v)) {
		struct manifest_entry *e = v;
		for (const char *kind = "RELC"; *kind; kind++) {
			const struct strlist *l = manifest_deps(e, *kind);
			for (size_t i = 0; i < l->n; i++) {
				const char *p = l->items[i];
				if (!under_sources(sources, p) || !parent_changed(&w, &changed_dirs, p) ||
				    hashmap_get(&seen, p))
					continue;
				hashmap_put(&seen, p, (void *)1);
				check_gone(&w, p, *kind == 'L' || *kind == 'C');
			}
		}
	}
	hashmap_release(&seen);
	hashmap_release(&changed_dirs);
}
