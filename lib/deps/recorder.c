/* recorder.c - the recording of dependencies from the crawl's render hooks
 * (see recorder.h). */
#include "deps/recorder.h"
#include "deps/choice.h"

#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>

#include "base/log.h"
#include "tree/manifest.h"
#include "tree/tree.h"
#include "base/xalloc.h"

/* ---- what the renders tell: dependencies and the site's own writes ---- */

static int cmp_strp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Move the paths of list that are not there to absent: the render looked
 * for them and found nothing (what changed since it looked, its event
 * re-renders the page anyway). Their creation is what matters; their
 * absence later is no change, which a catch-up (watch/catchup.c) could
 * not tell from a removal if they stood as R or E. seen holds what this
 * run's end found already (path -> PATH_THERE or PATH_ABSENT): the
 * pages of a site read mostly the same files, and each was lstat'ed
 * once per page. */
#define PATH_THERE ((void *)1)
#define PATH_ABSENT ((void *)2)
static void split_absent(struct strlist *list, struct strlist *absent, struct hashmap *seen)
{
	size_t kept = 0;
	for (size_t i = 0; i < list->n; i++) {
		char *path = list->items[i];
		void *was = hashmap_get(seen, path);
		if (!was) {
			struct stat st;
			was = lstat(path, &st) < 0 && (errno == ENOENT || errno == ENOTDIR) ? PATH_ABSENT : PATH_THERE;
			hashmap_put(seen, path, was);
		}
		if (was == PATH_ABSENT)
			strlist_add_owned(absent, path);
		else
			list->items[kept++] = path;
	}
	list->n = kept;
}

/* A page that read this many files of one directory read it wholesale. */
#define CONTENTS_MIN 32

/* The parent directory of path, as a length (0 for none). */
static size_t dir_len(const char *path)
{
	const char *slash = strrchr(path, '/');
	return slash && slash != path ? (size_t)(slash - path) : 0;
}

/* Keep a page's dependencies small: an existence check of a file the page
 * also read says nothing more, and many reads in one directory (a
 * backlinks page reads every page) become one C line for the directory. */
static void compact_deps(struct manifest_entry *e)
{
	struct strlist read = STRLIST_INIT;
	size_t kept = 0;
	for (size_t i = 0; i < e->deps_exist.n; i++)
		if (e->deps_read.n && /* bsearch's array may not be NULL, even empty */
		    bsearch(&e->deps_exist.items[i], e->deps_read.items, e->deps_read.n, sizeof(char *), cmp_strp))
			free(e->deps_exist.items[i]);
		else
			e->deps_exist.items[kept++] = e->deps_exist.items[i];
	e->deps_exist.n = kept;

	struct hashmap per_dir = HASHMAP_INIT; /* directory -> files read in it */
	struct buf dir = BUF_INIT;
	for (size_t i = 0; i < e->deps_read.n; i++) {
		const char *p = e->deps_read.items[i];
		size_t len = dir_len(p);
		if (!len)
			continue;
		buf_reset(&dir);
		buf_add(&dir, p, len);
		uintptr_t n = (uintptr_t)hashmap_get(&per_dir, buf_str(&dir));
		hashmap_put(&per_dir, buf_str(&dir), (void *)(n + 1));
	}
	for (size_t i = 0; i < e->deps_read.n; i++) {
		char *p = e->deps_read.items[i];
		size_t len = dir_len(p);
		buf_reset(&dir);
		buf_add(&dir, p, len);
		uintptr_t n = len ? (uintptr_t)hashmap_get(&per_dir, buf_str(&dir)) : 0;
		if (n < CONTENTS_MIN) {
			strlist_add_owned(&read, p);
			continue;
		}
		free(p);
		if (!strlist_contains(&e->deps_contents, buf_str(&dir)))
			strlist_add(&e->deps_contents, buf_str(&dir));
	}
	buf_release(&dir);
	hashmap_release(&per_dir);
	strlist_sort(&e->deps_contents);
	free(e->deps_read.items);
	e->deps_read = read;
}

/* target's render wrote path. Locked. */
static void note_writer_locked(struct dep_recorder *r, const char *path, const char *target)
{
	struct strlist *l = hashmap_get(&r->writers, path);
	if (!l) {
		l = xcalloc(1, sizeof *l);
		hashmap_put(&r->writers, path, l);
	}
	if (!strlist_contains(l, target))
		strlist_add(l, target);
}

static void forget_writers(struct dep_recorder *r, const char *path)
{
	struct strlist *l = hashmap_remove(&r->writers, path);
	if (l) {
		strlist_clear(l);
		free(l);
	}
}

/* How a run left a path it wrote. The birth time (0 where the file
 * system keeps none) tells a file replaced whole from one written in
 * place: ext4 gives a file made just after another was removed the
 * freed inode again, so a cache rewritten by rename often keeps its
 * inode number. */
struct left_as {
	bool exists;
	dev_t dev;
	ino_t ino;
	off_t size;
	struct timespec mtime, ctime, btime;
};

static struct timespec statx_time(struct statx_timestamp t)
{
	return (struct timespec){ (time_t)t.tv_sec, (long)t.tv_nsec };
}

static void look_at(const char *path, struct left_as *l)
{
	struct statx st;
	memset(l, 0, sizeof *l);
	if (statx(AT_FDCWD, path, AT_SYMLINK_NOFOLLOW, STATX_BASIC_STATS | STATX_BTIME, &st) < 0)
		return;
	l->exists = true;
	l->dev = makedev(st.stx_dev_major, st.stx_dev_minor);
	l->ino = (ino_t)st.stx_ino;
	l->size = (off_t)st.stx_size;
	l->mtime = statx_time(st.stx_mtime);
	l->ctime = statx_time(st.stx_ctime);
	if (st.stx_mask & STATX_BTIME)
		l->btime = statx_time(st.stx_btime);
}

/* path was written by a render that just ended: how it left it is looked
 * at now, under the lock, so that the last render's look is the one
 * kept. Not at the run's end: a write by another program after the last
 * render that wrote the file (an edit saved into the database while a
 * batch renders other pages) would be taken for the renders'. */
static void note_written_locked(struct dep_recorder *r, const char *path)
{
	if (!hashmap_put(&r->written, path, (void *)1))
		strlist_add(&r->fresh, path);
	struct left_as *l = hashmap_get(&r->run_written, path);
	if (!l) {
		l = xmalloc(sizeof *l);
		hashmap_put(&r->run_written, path, l);
	}
	look_at(path, l);
}


static void record_render(void *arg, struct manifest_entry *e, const struct origin_response *rs)
{
	struct dep_recorder *r = arg;
	if (e) {
		dep_choice_filter(r, &rs->deps_read, &e->deps_read);
		dep_choice_filter(r, &rs->deps_exist, &e->deps_exist);
		dep_choice_filter(r, &rs->deps_listed, &e->deps_listed);
		compact_deps(e);
		/* What it wrote, kept with the page: a later run (a watch on a
		 * snapshot's tree) knows whom another program's write concerns.
		 * What is not there any more is sorted out at the run's end
		 * (split_as_left). */
		dep_choice_filter(r, &rs->deps_written, &e->deps_wrote);
		if (rs->untraced)
			strlist_add(&e->deps_untraced, rs->untraced);
	}
	if (e && rs->untraced) {
		pthread_mutex_lock(&r->lock);
		bool first = !hashmap_get(&r->untraced, rs->untraced);
		if (first)
			hashmap_put(&r->untraced, rs->untraced, (void *)1);
		pthread_mutex_unlock(&r->lock);
		if (first)
			log_warn("'%s' %s: its pages cannot be traced and re-render on every change", rs->untraced,
				 rs->untraced_why ? rs->untraced_why : "was not traced");
	}
	/* Files a render wrote (caches, indexes) are the site's own state:
	 * watch ignores their events. Every render counts, whatever it
	 * answered or whether it failed. */
	/* Only what is recorded as any path is: under the roots (and, for a
	 * snapshot, anywhere but the system's and cgisnap's own directories).
	 * A write elsewhere starts no event to judge, and every render that
	 * starts a PHP session writes a file of a new name in the private
	 * session directory: kept, they grew watch by a few MiB an hour. */
	struct strlist real = STRLIST_INIT; /* written through a link: the event comes there */
	struct strlist wrote = STRLIST_INIT;
	for (size_t i = 0; i < rs->deps_written.n; i++) {
		const char *w = rs->deps_written.items[i];
		char *p = real_paths_get(&r->real, w);
		if (p && strcmp(p, w) && dep_recordable(r, p))
			strlist_add(&real, p);
		if (dep_recordable(r, w))
			strlist_add(&wrote, w);
		free(p);
	}
	pthread_mutex_lock(&r->lock);
	for (size_t i = 0; i < wrote.n; i++) {
		note_written_locked(r, wrote.items[i]);
		if (e)
			note_writer_locked(r, wrote.items[i], e->target);
	}
	for (size_t i = 0; i < real.n; i++) {
		note_written_locked(r, real.items[i]);
		if (e)
			note_writer_locked(r, real.items[i], e->target);
	}
	pthread_mutex_unlock(&r->lock);
	strlist_clear(&real);
	strlist_clear(&wrote);
}

/* Written paths looked at after each run besides those the run wrote and
 * those found gone last time: the rest of the set is gone through this
 * many at a time, in turn, so that a path no render writes again is
 * still forgotten one day, at a cost per run that does not grow with
 * the set. */
#define VANISHED_ROUND 64

/* Renders write temporary files and rename them away (the wiki's cache):
 * the set of written paths would grow for as long as watch runs. A path
 * gone at the end of two runs in a row is forgotten: by then watch has
 * read the events its writes caused (they arrive while the first run
 * renders), so forgetting it starts no batch. A render writing it again
 * puts it back. Only the paths this run wrote, those found gone last
 * time and VANISHED_ROUND others in turn are looked at. */
static bool same_time(struct timespec a, struct timespec b)
{
	return a.tv_sec == b.tv_sec && a.tv_nsec == b.tv_nsec;
}

/* Another file than the one the run left: another inode, or the same
 * inode number born again. */
static bool replaced_whole(const struct left_as *was, const struct left_as *now)
{
	bool births_known = (was->btime.tv_sec || was->btime.tv_nsec) && (now->btime.tv_sec || now->btime.tv_nsec);
	return was->dev != now->dev || was->ino != now->ino || (births_known && !same_time(was->btime, now->btime));
}

static bool same_as_left(const struct left_as *a, const struct left_as *b)
{
	if (a->exists != b->exists)
		return false;
	return !a->exists || (!replaced_whole(a, b) && a->size == b->size && same_time(a->mtime, b->mtime) &&
			      same_time(a->ctime, b->ctime));
}

/* Note how this run left each path it wrote: as the last render that
 * wrote it left it. Locked. */
static void note_left(struct dep_recorder *r)
{
	size_t it = 0;
	const char *k;
	void *v;
	while (hashmap_next(&r->run_written, &it, &k, &v)) {
		struct left_as *l = hashmap_get(&r->left, k);
		if (!l) {
			l = xmalloc(sizeof *l);
			hashmap_put(&r->left, k, l);
		}
		*l = *(struct left_as *)v;
	}
}

static void forget_left(struct dep_recorder *r, const char *path)
{
	free(hashmap_remove(&r->left, path));
}

static void forget_vanished_writes(struct dep_recorder *r)
{
	struct strlist look = STRLIST_INIT, gone = STRLIST_INIT;
	size_t it = 0;
	const char *k;
	while (hashmap_next(&r->run_written, &it, &k, NULL))
		strlist_add(&look, k);
	it = 0;
	while (hashmap_next(&r->vanished, &it, &k, NULL))
		strlist_add(&look, k);
	for (int i = 0; i < VANISHED_ROUND && r->written.count; i++) {
		if (!hashmap_next(&r->written, &r->round, &k, NULL)) {
			r->round = 0;
			if (!hashmap_next(&r->written, &r->round, &k, NULL))
				break;
		}
		strlist_add(&look, k);
	}
	strlist_sort(&look);
	strlist_uniq(&look);
	for (size_t i = 0; i < look.n; i++) {
		k = look.items[i];
		if (!hashmap_get(&r->written, k)) {
			hashmap_remove(&r->vanished, k);
			continue;
		}
		struct stat st;
		bool exists = lstat(k, &st) == 0 || errno != ENOENT;
		if (exists)
			hashmap_remove(&r->vanished, k);
		else if (hashmap_get(&r->vanished, k))
			strlist_add(&gone, k);
		else
			hashmap_put(&r->vanished, k, (void *)1);
	}
	for (size_t i = 0; i < gone.n; i++) {
		hashmap_remove(&r->written, gone.items[i]);
		hashmap_remove(&r->vanished, gone.items[i]);
		forget_left(r, gone.items[i]);
		forget_writers(r, gone.items[i]);
	}
	note_left(r);
	hashmap_release_with(&r->run_written, free);
	strlist_clear(&look);
	strlist_clear(&gone);
}

/* Files a render wrote are the site's own state, never dependencies:
 * drop them from e's R, E and A lists. Locked. */
static void drop_written(struct dep_recorder *r, struct manifest_entry *e)
{
	for (const char *kind = "REA"; *kind; kind++) {
		struct strlist *l = manifest_deps(e, *kind);
		size_t kept = 0;
		for (size_t i = 0; i < l->n; i++)
			if (hashmap_get(&r->written, l->items[i]))
				free(l->items[i]);
			else
				l->items[kept++] = l->items[i];
		l->n = kept;
	}
}

/* The pages not changed by this run whose lists hold a path first
 * written now, found by the database's index (their rows are as the
 * last run saved them), appended to changed. -1 with err. */
static int first_written_dependents(struct dep_recorder *r, struct manifest *m, struct strlist *changed,
				    struct tree *t, char *err)
{
	struct hashmap seen = HASHMAP_INIT;
	struct strlist deps = STRLIST_INIT;
	int rc = 0;
	for (size_t i = 0; i < changed->n; i++)
		hashmap_put(&seen, changed->items[i], (void *)1);
	for (size_t i = 0; rc == 0 && i < r->fresh.n; i++)
		for (const char *kind = "REA"; rc == 0 && *kind; kind++)
			rc = manifest_dependents(t, *kind, r->fresh.items[i], &deps, err);
	for (size_t i = 0; rc == 0 && i < deps.n; i++) {
		struct manifest_entry *e = manifest_find(m, deps.items[i]);
		if (!e || hashmap_get(&seen, e->target))
			continue;
		hashmap_put(&seen, e->target, (void *)1);
		drop_written(r, e);
		strlist_add(changed, e->target);
	}
	hashmap_release(&seen);
	strlist_clear(&deps);
	return rc;
}

/* At the end of a run, as it leaves the files: a path the render read or
 * looked for that is not there is A, and what it wrote that is gone (a
 * temporary renamed away, a journal deleted: they would only make every
 * render's list differ) is no W. At the end of the run, not of the
 * render: what the other renders of the run made or removed meanwhile
 * would make the lists differ with the renders' order (worker and fork
 * mode, -j), and the run's end is what a later watch's catch-up compares
 * with. */
static void split_as_left(struct manifest_entry *e, struct hashmap *seen)
{
	split_absent(&e->deps_read, &e->deps_absent, seen);
	split_absent(&e->deps_exist, &e->deps_absent, seen);
	strlist_sort(&e->deps_absent);
	strlist_uniq(&e->deps_absent);
	struct strlist gone = STRLIST_INIT;
	split_absent(&e->deps_wrote, &gone, seen);
	strlist_clear(&gone);
}

static void record_commit(void *arg, struct manifest *m, struct strlist *changed, struct tree *t)
{
	struct dep_recorder *r = arg;
	char err[ERR_LEN];
	struct hashmap seen = HASHMAP_INIT;
	dep_choices_forget(r); /* the next run looks again */
	pthread_mutex_lock(&r->lock);
	for (size_t i = 0; changed && i < changed->n; i++) {
		struct manifest_entry *e = manifest_get(m, changed->items[i]);
		if (e) {
			split_as_left(e, &seen);
			drop_written(r, e);
		}
	}
	/* Older pages can hold only the paths first written now. Without
	 * the index (an error reading it) every page is gone through. */
	if (changed && first_written_dependents(r, m, changed, t, err) < 0) {
		log_warn("%s", err);
		changed = NULL;
	}
	if (!changed) {
		size_t it = 0;
		void *v;
		while (hashmap_next(&m->entries, &it, NULL, &v)) {
			split_as_left(v, &seen);
			drop_written(r, v);
		}
	}
	strlist_clear(&r->fresh);
	forget_vanished_writes(r);
	pthread_mutex_unlock(&r->lock);
	hashmap_release(&seen);
}

void dep_recorder_init(struct dep_recorder *r)
{
	memset(r, 0, sizeof *r);
	pthread_mutex_init(&r->lock, NULL);
	pthread_mutex_init(&r->chosen_lock, NULL);
	real_paths_init(&r->real);
}

struct crawl_hooks dep_recorder_hooks(struct dep_recorder *r)
{
	struct crawl_hooks h = { record_render, record_commit, r, NULL, NULL };
	return h;
}

bool dep_recorder_written(struct dep_recorder *r, const char *path)
{
	pthread_mutex_lock(&r->lock);
	bool written = hashmap_get(&r->written, path) != NULL;
	pthread_mutex_unlock(&r->lock);
	return written;
}

bool dep_recorder_own_change(struct dep_recorder *r, const char *path)
{
	pthread_mutex_lock(&r->lock);
	bool own = hashmap_get(&r->written, path) != NULL;
	const struct left_as *l = own ? hashmap_get(&r->left, path) : NULL;
	if (l) {
		struct left_as now;
		look_at(path, &now);
		/* Replaced whole is a cache made again, by a render elsewhere
		 * (the web server's): the site's own still. Written in place
		 * is a database updated: a change. */
		own = same_as_left(l, &now) || (l->exists && now.exists && replaced_whole(l, &now));
	}
	pthread_mutex_unlock(&r->lock);
	return own;
}

void dep_recorder_writers(struct dep_recorder *r, const char *path, struct strlist *out)
{
	pthread_mutex_lock(&r->lock);
	const struct strlist *l = hashmap_get(&r->writers, path);
	for (size_t i = 0; l && i < l->n; i++)
		if (!strlist_contains(out, l->items[i]))
			strlist_add(out, l->items[i]);
	pthread_mutex_unlock(&r->lock);
}

static bool valid_ns(long ns)
{
	return ns >= 0 && ns <= 999999999;
}

/* The left_as of a written list's STATE ("DEV INO SIZE MS.MNS CS.CNS
 * BS.BNS": the birth time 0.000000000 where unknown); false when it is
 * not one. */
static bool parse_left(const char *state, struct left_as *l)
{
	unsigned long long dev, ino;
	long long size, ms, cs, bs;
	long mns, cns, bns;
	int end = 0;
	if (sscanf(state, "%llu %llu %lld %lld.%ld %lld.%ld %lld.%ld%n", &dev, &ino, &size, &ms, &mns, &cs, &cns, &bs,
		   &bns, &end) != 9 ||
	    state[end] || !valid_ns(mns) || !valid_ns(cns) || !valid_ns(bns))
		return false;
	*l = (struct left_as){ true,	       (dev_t)dev,	    (ino_t)ino,		  (off_t)size,
			       { (time_t)ms, mns }, { (time_t)cs, cns }, { (time_t)bs, bns } };
	return true;
}

void dep_recorder_note_written(struct dep_recorder *r, const char *line)
{
	const char *tab = strchr(line, '\t');
	char *path = tab ? xstrndup(line, (size_t)(tab - line)) : xstrdup(line);
	struct left_as l;
	bool known = tab && parse_left(tab + 1, &l);
	pthread_mutex_lock(&r->lock);
	note_written_locked(r, path);
	if (known) {
		struct left_as *had = hashmap_get(&r->left, path);
		if (!had) {
			had = xmalloc(sizeof *had);
			hashmap_put(&r->left, path, had);
		}
		*had = l;
	}
	pthread_mutex_unlock(&r->lock);
	free(path);
}

void dep_recorder_written_lines(struct dep_recorder *r, struct strlist *out)
{
	struct strlist all = STRLIST_INIT;
	pthread_mutex_lock(&r->lock);
	size_t it = 0;
	const char *k;
	while (hashmap_next(&r->written, &it, &k, NULL))
		strlist_add(&all, k);
	pthread_mutex_unlock(&r->lock);
	strlist_sort(&all);
	for (size_t i = 0; i < all.n; i++) {
		struct left_as l;
		if (!dep_recordable(r, all.items[i]) || strchr(all.items[i], '\t'))
			continue;
		look_at(all.items[i], &l);
		if (l.exists)
			strlist_add_owned(out, xasprintf("%s\t%llu %llu %lld %lld.%09ld %lld.%09ld %lld.%09ld",
							 all.items[i], (unsigned long long)l.dev,
							 (unsigned long long)l.ino, (long long)l.size,
							 (long long)l.mtime.tv_sec, l.mtime.tv_nsec,
							 (long long)l.ctime.tv_sec, l.ctime.tv_nsec,
							 (long long)l.btime.tv_sec, l.btime.tv_nsec));
	}
	strlist_clear(&all);
}

void dep_recorder_release(struct dep_recorder *r)
{
	dep_choices_forget(r);
	pthread_mutex_destroy(&r->chosen_lock);
	real_paths_release(&r->real);
	strlist_clear(&r->roots);
	strlist_clear(&r->skip);
	hashmap_release(&r->written);
	hashmap_release_with(&r->run_written, free);
	strlist_clear(&r->fresh);
	hashmap_release(&r->vanished);
	hashmap_release_with(&r->left, free);
	size_t it = 0;
	void *v;
	while (hashmap_next(&r->writers, &it, NULL, &v)) {
		strlist_clear(v);
		free(v);
	}
	hashmap_release(&r->writers);
	hashmap_release(&r->untraced);
	pthread_mutex_destroy(&r->lock);
	memset(r, 0, sizeof *r);
}
