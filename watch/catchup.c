/* catchup.c - the sources' changes since the tree's last run, from the
 * files' times (see catchup.h). */
#include "catchup.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/clock.h"
#include "base/cpus.h"
#include "base/fswatch.h"
#include "base/log.h"
#include "base/hashmap.h"
#include "base/xalloc.h"
#include "scan.h"

struct walk {
	struct timespec after; /* since, less the slack */
	bool (*skip)(void *arg, const char *path);
	void *arg;
	struct changes *out;
	long entries;          /* looked at under the sources (-v) */
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

/* The walk goes through directories on several threads at once (the
 * kernel's stat of each file is most of a large tree's start-up): a
 * queue of the directories to scan, and what the scans found, put in
 * order once all are done. */
#define WALK_THREADS_MAX 4

/* A directory to scan, and whether it is to be said created when no
 * render wrote in it (its parent's entry found it changed and new). */
struct dir_job {
	char *path;
	bool report_if_new;
	struct dir_job *next;
};

/* A change found: path and its flags. */
struct found {
	char *path;
	unsigned flags;
};

struct pwalk {
	struct walk *w;
	pthread_mutex_t mu;
	pthread_cond_t cond;
	struct dir_job *queue;
	int busy;             /* scans under way */
	struct found *found;
	size_t nfound, cap;
};

/* Append a change found. Locked. */
static void found_add_locked(struct pwalk *p, char *path, unsigned flags)
{
	if (p->nfound == p->cap)
		p->found = xreallocarray(p->found, p->cap = p->cap ? 2 * p->cap : 64, sizeof *p->found);
	p->found[p->nfound++] = (struct found){ path, flags };
}

static void queue_dir_locked(struct pwalk *p, char *path, bool report_if_new)
{
	struct dir_job *j = xcalloc(1, sizeof *j);
	j->path = path;
	j->report_if_new = report_if_new;
	j->next = p->queue;
	p->queue = j;
}

/* What one directory's scan found, merged into the walk's at its end. */
struct scan_at {
	struct pwalk *p;
	const char *path;
	bool written; /* a render wrote something directly in it */
	long entries;
	struct found *found;
	size_t nfound, cap;
	struct dir_job *subdirs;
};

static void scan_add(struct scan_at *at, char *path, unsigned flags)
{
	if (at->nfound == at->cap)
		at->found = xreallocarray(at->found, at->cap = at->cap ? 2 * at->cap : 16, sizeof *at->found);
	at->found[at->nfound++] = (struct found){ path, flags };
}

/* One entry of a directory: a changed file, or a directory to scan in
 * its turn (said created, if new, once its own scan found no render's
 * write in it). */
static void scan_entry(void *arg, int dirfd, const char *name, const struct stat *sb)
{
	struct scan_at *at = arg;
	struct walk *w = at->p->w;
	at->entries++;
	char *child = xasprintf("%s/%s", strcmp(at->path, "/") ? at->path : "", name);
	if (w->skip(w->arg, child)) {
		at->written = true;
	} else if (S_ISDIR(sb->st_mode)) {
		struct dir_job *j = xcalloc(1, sizeof *j);
		j->path = child;
		j->report_if_new = changed_since(sb, &w->after) && dir_new(w, dirfd, name);
		j->next = at->subdirs;
		at->subdirs = j;
		return;
	} else if (changed_since(sb, &w->after)) {
		scan_add(at, child, FSW_CHANGED | FSW_CREATED);
		return;
	}
	free(child);
}

/* Scan one directory (an entry gone meanwhile has its event coming), and
 * merge what it found. Unlocked, then locked. */
static void scan_job(struct pwalk *p, struct dir_job *j)
{
	struct scan_at at = { p, j->path, false, 0, NULL, 0, 0, NULL };
	int fd = open(j->path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd >= 0)
		scan_each(fd, scan_entry, &at);
	pthread_mutex_lock(&p->mu);
	p->w->entries += at.entries;
	for (size_t i = 0; i < at.nfound; i++)
		found_add_locked(p, at.found[i].path, at.found[i].flags);
	if (j->report_if_new && !at.written)
		found_add_locked(p, xstrdup(j->path), FSW_CHANGED | FSW_CREATED | FSW_DIR);
	while (at.subdirs) {
		struct dir_job *sub = at.subdirs;
		at.subdirs = sub->next;
		sub->next = p->queue;
		p->queue = sub;
	}
	pthread_mutex_unlock(&p->mu);
	free(at.found);
}

static void *walk_worker(void *arg)
{
	struct pwalk *p = arg;
	pthread_mutex_lock(&p->mu);
	for (;;) {
		while (!p->queue && p->busy)
			pthread_cond_wait(&p->cond, &p->mu);
		if (!p->queue)
			break; /* nothing queued, nothing under way: done */
		struct dir_job *j = p->queue;
		p->queue = j->next;
		p->busy++;
		pthread_mutex_unlock(&p->mu);
		scan_job(p, j);
		pthread_mutex_lock(&p->mu);
		p->busy--;
		pthread_cond_broadcast(&p->cond);
		free(j->path);
		free(j);
	}
	pthread_cond_broadcast(&p->cond);
	pthread_mutex_unlock(&p->mu);
	return NULL;
}

static int by_found_path(const void *a, const void *b)
{
	return strcmp(((const struct found *)a)->path, ((const struct found *)b)->path);
}

/* Walk the directories of dirs (their contents: a source itself is never
 * said created) on up to WALK_THREADS_MAX threads, no more than the CPUs
 * it may run on; the changes found go to w->out in path order, the same
 * whatever the threads' timing. Returns the threads that walked. */
static size_t walk_dirs(struct walk *w, const struct strlist *dirs)
{
	struct pwalk p = { .w = w };
	pthread_mutex_init(&p.mu, NULL);
	pthread_cond_init(&p.cond, NULL);
	for (size_t i = dirs->n; i-- > 0;)
		queue_dir_locked(&p, xstrdup(dirs->items[i]), false);
	int cpus = cpus_usable();
	size_t nthreads = (size_t)(cpus < WALK_THREADS_MAX ? cpus : WALK_THREADS_MAX);
	pthread_t threads[WALK_THREADS_MAX];
	size_t started = 0;
	for (; started + 1 < nthreads; started++)
		if (pthread_create(&threads[started], NULL, walk_worker, &p) != 0)
			break;
	walk_worker(&p); /* this thread too: alone when none could start */
	for (size_t i = 0; i < started; i++)
		pthread_join(threads[i], NULL);
	if (p.nfound > 1)
		qsort(p.found, p.nfound, sizeof *p.found, by_found_path);
	for (size_t i = 0; i < p.nfound; i++) {
		changes_add(w->out, p.found[i].path, p.found[i].flags);
		free(p.found[i].path);
	}
	free(p.found);
	pthread_mutex_destroy(&p.mu);
	pthread_cond_destroy(&p.cond);
	return started + 1;
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
	long dirs, changed_dirs; /* recorded directories near the sources, of them changed (-v) */
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
	r->dirs++;
	size_t n = strlen(dir);
	char *path = xstrndup(dir, n > 1 && dir[n - 1] == '/' ? n - 1 : n);
	struct stat sb;
	bool changed = stat(path, &sb) < 0 || changed_since(&sb, &r->w->after);
	free(path);
	r->changed_dirs += changed;
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
	long long start = now_ms();
	struct walk w = { *since, skip, arg, out, 0 };
	long long ns = (long long)w.after.tv_nsec - CATCHUP_SLACK_MS * 1000000LL;
	while (ns < 0) {
		ns += 1000000000LL;
		w.after.tv_sec--;
	}
	w.after.tv_nsec = (long)ns;

	struct strlist dirs = STRLIST_INIT;
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
		strlist_add(&dirs, src);
	}
	size_t threads = walk_dirs(&w, &dirs);
	strlist_clear(&dirs);

	/* Each recorded path once, where its directory changed: read from
	 * the tree's sets, directory by directory, not page by page. Not
	 * the A ones: looked for and not found then, their absence now is
	 * no change (their creation since is a file the walk above finds). */
	long long walked = now_ms();
	struct recorded r = { &w, sources, HASHMAP_INIT, 0, 0 };
	int rc = manifest_each_set(t, "RELC", recorded_dir_wanted, recorded_set, &r, err);
	log_debug("catch-up: %ld entries under the sources looked at in %lld ms on %zu thread%s; %ld of %ld recorded "
		  "directories changed, %zu recorded paths in them checked in %lld ms",
		  w.entries, walked - start, threads, threads == 1 ? "" : "s", r.changed_dirs, r.dirs, r.seen.count,
		  now_ms() - walked);
	hashmap_release(&r.seen);
	return rc;
}
