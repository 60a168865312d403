/* stale.c - holding a page whose render may have read half a save (see
 * stale.h). */
#include "stale.h"

#include <stdlib.h>
#include <sys/stat.h>
#include <string.h>

#include "base/clock.h"
#include "settle.h"
#include "base/xalloc.h"

void stale_init(struct stale *s, struct srcwatch *fsw, bool traced, bool (*ignored)(void *arg, const char *path),
		void *arg)
{
	memset(s, 0, sizeof *s);
	pthread_mutex_init(&s->lock, NULL);
	s->fsw = fsw;
	s->traced = traced;
	s->ignored = ignored;
	s->arg = arg;
}

void stale_add_file(struct stale *s, const char *path)
{
	pthread_mutex_lock(&s->lock);
	strlist_add(&s->files, path);
	pthread_mutex_unlock(&s->lock);
}

/* Keep the writing set after an event. Locked. */
static void note_locked(struct stale *s, const char *path, unsigned flags, long long now)
{
	if (!path || (flags & FSW_DIR) || strlist_contains(&s->files, path))
		return;
	/* A write not closed yet. (A file created and not written yet is
	 * empty: just_emptied sees to it. A name "created" may also be a
	 * file found in a directory that came, closed long ago.) */
	if ((flags & FSW_CHANGED) && (flags & FSW_WRITING)) {
		if (!hashmap_get(&s->writing, path)) {
			long long *since = xmalloc(sizeof *since);
			*since = now;
			hashmap_put(&s->writing, path, since);
		}
		return;
	}
	/* Closed, removed, or another file renamed over it: the writer that
	 * is left writes to no name of ours. */
	if (flags & (FSW_CHANGED | FSW_REMOVED | FSW_CREATED))
		free(hashmap_remove(&s->writing, path));
}

void stale_note(struct stale *s, const char *path, unsigned flags, long long now)
{
	pthread_mutex_lock(&s->lock);
	if (flags & FSW_OVERFLOW) {
		/* closes were lost: forget what was open rather than hold for ever */
		hashmap_release_with(&s->writing, free);
	} else {
		note_locked(s, path, flags, now);
	}
	pthread_mutex_unlock(&s->lock);
}

/* The directory part of path, its length (no trailing slash). */
static size_t dir_len(const char *path)
{
	const char *slash = strrchr(path, '/');
	return slash ? (size_t)(slash - path) : 0;
}

/* l holds the directory of path. */
static bool has_dir_of(const struct strlist *l, const char *path)
{
	size_t n = dir_len(path);
	for (size_t i = 0; i < l->n; i++)
		if (strlen(l->items[i]) == n && !strncmp(l->items[i], path, n))
			return true;
	return false;
}

/* l holds a path below the directory dir. */
static bool has_below(const struct strlist *l, const char *dir)
{
	size_t n = strlen(dir);
	for (size_t i = 0; i < l->n; i++)
		if (!strncmp(l->items[i], dir, n) && l->items[i][n] == '/')
			return true;
	return false;
}

/* Whether a change of path with flags touches what e depends on (as
 * deps.h maps changes to pages). */
static bool touches(struct stale *s, struct manifest_entry *e, const char *path, unsigned flags)
{
	if (!path)
		return true; /* an overflow: anything may have changed */
	if (strlist_contains(&s->files, path))
		return false; /* a database: consistent whenever it is read */
	/* An editor's or the site's temporary file (settle_temp_name) is
	 * read by no render; the rename that ends its save is the change.
	 * Without this, two renders writing their caches in a directory both
	 * read (the wiki's data/cache: a C dependency) would hold each other
	 * batch after batch: a render's writes are known as its own only
	 * once it ends. */
	const char *slash = strrchr(path, '/');
	if (settle_temp_name(slash ? slash + 1 : path))
		return false;
	if (manifest_deps(e, 'U')->n || (!s->traced && !manifest_deps_count(e)))
		return true; /* not traced: any change may be one it read */
	bool names = flags & (FSW_CREATED | FSW_REMOVED);
	if (strlist_contains(manifest_deps(e, 'R'), path) || has_dir_of(manifest_deps(e, 'C'), path))
		return true;
	if (names && (strlist_contains(manifest_deps(e, 'E'), path) || strlist_contains(manifest_deps(e, 'A'), path) ||
		      has_dir_of(manifest_deps(e, 'L'), path)))
		return true;
	if ((flags & FSW_DIR) && (flags & FSW_REMOVED))
		for (const char *k = "RELC"; *k; k++)
			if (has_below(manifest_deps(e, *k), path))
				return true;
	return false;
}

/* The wall clock in ms, as the kernel stamps ctime. */
static long long wall_ms(void)
{
	struct timespec now;
	clock_gettime(CLOCK_REALTIME, &now);
	return now.tv_sec * 1000LL + now.tv_nsec / 1000000;
}

/* When path, a regular file, was emptied (its ctime, wall clock ms) if
 * that was after since or less than STALE_EMPTY_MS before it; else 0. */
static long long just_emptied(const char *path, long long since)
{
	struct stat st;
	if (lstat(path, &st) < 0 || !S_ISREG(st.st_mode) || st.st_size)
		return 0;
	long long changed = st.st_ctim.tv_sec * 1000LL + st.st_ctim.tv_nsec / 1000000;
	return changed > since - STALE_EMPTY_MS ? changed : 0;
}

/* The first file the page was read from (static_file, or one of its R
 * dependencies) that was just emptied, or NULL. Not one a render wrote
 * (an empty lock or index file a site rewrites on every render would
 * hold its pages for ever), nor a single-file source. */
static const char *emptied_source(struct stale *s, struct manifest_entry *e, const char *static_file,
				  long long *emptied)
{
	/* From the run's start: the render may have read the file empty
	 * long before this check, which a loaded machine can run late,
	 * while the writer still waits to queue its truncation's event. */
	long long since = s->run_start ? s->run_start : wall_ms();
	if (static_file && (*emptied = just_emptied(static_file, since)))
		return static_file;
	struct strlist *r = manifest_deps(e, 'R');
	for (size_t i = 0; i < r->n; i++)
		if (!strlist_contains(&s->files, r->items[i]) && !s->ignored(s->arg, r->items[i]) &&
		    (*emptied = just_emptied(r->items[i], since)))
			return r->items[i];
	return NULL;
}

/* Have the held pages tried again by at (now_ms) at the latest. Locked. */
static void retry_after(struct stale *s, long long at)
{
	if (!s->retry_at || at < s->retry_at)
		s->retry_at = at;
}

void stale_begin_run(struct stale *s)
{
	pthread_mutex_lock(&s->lock);
	s->run_start = wall_ms();
	pthread_mutex_unlock(&s->lock);
}

bool stale_hold(void *arg, const struct manifest_entry *ce, const struct origin_response *rs,
		const char *static_file)
{
	struct stale *s = arg;
	(void)rs; /* what a render read is in e's dependencies */
	/* manifest_deps takes no const entry; nothing is changed through it */
	struct manifest_entry *e = (struct manifest_entry *)ce;
	bool hold = false;
	struct fsw_events got = FSW_EVENTS_INIT;
	pthread_mutex_lock(&s->lock);
	if (s->fsw && !s->read_failed) {
		char err[ERR_LEN];
		if (srcwatch_read(s->fsw, &got, err) < 0) {
			s->read_failed = true;
			memcpy(s->err, err, sizeof s->err);
		}
	}
	long long now = now_ms();
	/* The site's own writes hold nothing; they are kept apart, a path
	 * once (each check below goes over every event kept in the run, and
	 * a site writes many), for the next batch to judge once the run
	 * ended: how the last render that wrote a file left it is known
	 * then, and a write by another program since is a change. */
	for (size_t i = 0; i < got.n; i++) {
		const struct fsw_event *ev = &got.items[i];
		bool special = !ev->path || (ev->flags & (FSW_GONE | FSW_BACK));
		if (!special && s->ignored(s->arg, ev->path)) {
			uintptr_t had = (uintptr_t)hashmap_get(&s->own, ev->path);
			hashmap_put(&s->own, ev->path, (void *)(had | ev->flags));
			continue;
		}
		if (!special)
			note_locked(s, ev->path, ev->flags, now);
		fsw_events_add(&s->early, ev->flags, ev->path);
	}
	fsw_events_clear(&got);
	const char *why = NULL;
	if (s->read_failed)
		hold = true, why = "(the events could not be read)";
	/* Every event of the run so far: one before this render began may
	 * have been read by an earlier render's check. */
	for (size_t i = 0; !hold && i < s->early.n; i++) {
		const struct fsw_event *ev = &s->early.items[i];
		if (ev->flags & (FSW_GONE | FSW_BACK))
			continue; /* the crawl's removal check sees to a missing source */
		if (ev->path && s->ignored(s->arg, ev->path))
			continue;
		hold = touches(s, e, ev->path, ev->flags);
		why = ev->path ? ev->path : "(the inotify queue overflowed)";
	}
	size_t it = 0;
	const char *path;
	void *v;
	while (!hold && hashmap_next(&s->writing, &it, &path, &v)) {
		long long since = *(long long *)v;
		if (now - since < STALE_WRITING_MAX_MS && (hold = touches(s, e, path, FSW_CHANGED))) {
			why = path;
			/* its close re-renders the page; should it never come,
			 * the page is taken when the file is open too long */
			retry_after(s, since + STALE_WRITING_MAX_MS);
		}
	}
	/* open(O_TRUNC) makes the file empty before its IN_MODIFY is queued
	 * (ext4 frees the blocks in between, and may wait on its journal):
	 * a render can read it empty with no event to say so yet, and a
	 * writer descheduled on a loaded machine can stay there for hundreds
	 * of milliseconds. A source emptied within STALE_EMPTY_MS is taken
	 * as such a truncation; its event re-renders the page, else it is
	 * tried again once that window has passed (stale_take_early's
	 * *retry_at): the file may have been emptied on purpose. */
	long long emptied = 0;
	if (!hold && (why = emptied_source(s, e, static_file, &emptied))) {
		hold = true;
		long long wait = emptied + STALE_EMPTY_MS - wall_ms();
		retry_after(s, now + (wait > STALE_EMPTY_RETRY_MS ? wait : STALE_EMPTY_RETRY_MS));
	}
	if (hold)
		log_debug("held %s: %s changed while it rendered, or is still being written", e->target, why);
	pthread_mutex_unlock(&s->lock);
	return hold;
}

int stale_take_early(struct stale *s, struct fsw_events *out, long long *retry_at, char *err)
{
	int rc = 0;
	pthread_mutex_lock(&s->lock);
	*retry_at = s->retry_at;
	s->retry_at = 0;
	s->run_start = 0;
	for (size_t i = 0; i < s->early.n; i++)
		fsw_events_add(out, s->early.items[i].flags, s->early.items[i].path);
	fsw_events_clear(&s->early);
	/* Of the site's own writes, those still there: a temporary file a
	 * render renamed away is no file anyone could have written since
	 * (and the recorder forgets such paths at the run's end, so its
	 * event would look like someone else's). */
	size_t it = 0;
	const char *path;
	void *flags;
	struct stat st;
	while (hashmap_next(&s->own, &it, &path, &flags))
		if (lstat(path, &st) == 0)
			fsw_events_add(out, (unsigned)(uintptr_t)flags, path);
	hashmap_release(&s->own);
	if (s->read_failed) {
		rc = err_set(err, "%s", s->err);
		s->read_failed = false;
	}
	pthread_mutex_unlock(&s->lock);
	return rc;
}

void stale_release(struct stale *s)
{
	hashmap_release_with(&s->writing, free);
	hashmap_release(&s->own);
	fsw_events_clear(&s->early);
	strlist_clear(&s->files);
	pthread_mutex_destroy(&s->lock);
}
