/* commit.c - a run's findings become the manifest; gone files are pruned. */
#include "crawl/commit.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "crawl/claims.h"
#include "crawl/tally.h"
#include "tree/publish.h"
#include "url/urlkey.h"
#include "base/log.h"
#include "base/xalloc.h"

/* Whether an old entry's file is to be removed: 1 yes, 0 no (no file, or
 * this run gave that file to a URL), -1 with err for an unsafe key. */
static int want_drop(struct crawl *c, const struct manifest_entry *old, char *err)
{
	if (!old->key || hashmap_get(&c->claims, old->key))
		return 0;
	if (!urlkey_is_safe(old->key))
		return err_set(err, "refusing to remove unsafe manifest key '%s'", old->key);
	return 1;
}

/* Remove an old entry's file, once the manifest without it is saved. A
 * file that no longer holds what cgisnap wrote, or that cannot be reached
 * without following a link, is left where it is, with a note. false when
 * the removal merely failed: its entry is back in the manifest, to be
 * saved and retried. */
static bool drop_file(struct crawl *c, const struct manifest_entry *old)
{
	char why[ERR_LEN];
	struct strlist written = STRLIST_INIT, removed = STRLIST_INIT;
	struct publish_paths paths = { &written, &removed };
	int rc = publish_remove_noted(c->tree->fd, old->key, old->bytes, old->sha256, &paths, why);
	paths_merge(c, &paths); /* after the renders: no lock needed */
	strlist_clear(&written);
	strlist_clear(&removed);
	if (rc == 0) {
		strlist_add(&c->res->changed_keys, old->key);
		c->res->removed++;
		return true;
	}
	int saved = errno;
	char *note = rc == PUBLISH_KEPT
			     ? xasprintf("not removing '%s': it was changed since cgisnap published it", old->key)
			     : xasprintf("not removing '%s': %s", old->key, why);
	if (!strlist_contains(&c->res->kept, note))
		strlist_add(&c->res->kept, note);
	free(note);
	/* A removal that merely failed keeps its record, to be retried; a
	 * changed file or a link in the way is no longer cgisnap's. */
	if (rc < 0 && saved != ELOOP && saved != ENOTDIR && !manifest_get(&c->manifest, old->target)) {
		struct manifest_entry *back = manifest_entry_dup(old);
		manifest_put(&c->manifest, back);
		owned_add(c, back);
		return false;
	}
	return true;
}

static bool same_str(const char *a, const char *b)
{
	return a == b || (a && b && !strcmp(a, b));
}

/* A page that answered as before keeps its line as it was (render time
 * and change time too), so that a run that changes nothing rewrites
 * nothing: watch --poll re-renders every few seconds. */
static void keep_same_line(struct manifest_entry *now, const struct manifest_entry *old)
{
	if (now->status == old->status && now->bytes == old->bytes && !strcmp(now->sha256, old->sha256) &&
	    same_str(now->key, old->key) && same_str(now->content_type, old->content_type) &&
	    same_str(now->location, old->location)) {
		now->render_ms = old->render_ms;
		now->changed = old->changed;
	}
}

/* Test hooks (tests/t0580): with CGISNAP_TEST_PAUSE_BATCH=FILE set, a
 * crawl or watch batch whose files are all published (each committed as
 * pending first) stops before saving the manifest: it creates FILE.paused
 * and waits until FILE exists, so that a test can kill -9 it there, the
 * moment where only the pending rows record the new files.
 * CGISNAP_TEST_PAUSE_SAVED stops it after the save, before the pending
 * rows go: both record the same publishes. */
static void test_pause(const char *env)
{
	const char *file = getenv(env);
	if (!file || !*file)
		return;
	char *paused = xasprintf("%s.paused", file);
	int fd = open(paused, O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
	if (fd >= 0)
		close(fd);
	free(paused);
	const struct timespec tick = { 0, 10 * 1000 * 1000 };
	while (access(file, F_OK) < 0)
		nanosleep(&tick, NULL);
}

/* Save the manifest and remove the files of gone once it is saved.
 * changed: the targets whose entries the run made or altered, the only
 * rows saved (NULL: the whole manifest, compared row by row). */
static int save_and_drop(struct crawl *c, struct manifest *gone, struct strlist *changed, char *err)
{
	if (c->hooks.on_commit)
		c->hooks.on_commit(c->hooks.arg, &c->manifest, changed, c->tree);
	/* A lazy manifest that could not read an entry (the run's, or the
	 * hook's) may have taken a page for new, or a file for another's:
	 * not saved as such. Its publishes stay pending, replayed by the
	 * next run (crawl.c's load_whole). */
	if (manifest_lazy_error(&c->manifest, err) < 0)
		return -1;
	test_pause("CGISNAP_TEST_PAUSE_BATCH");
	long long written_before = manifest_rows_written(c->tree);
	long long compared_before = manifest_rows_compared(c->tree);
	/* The changed entries, borrowed from the manifest. */
	struct manifest delta = MANIFEST_INIT;
	for (size_t i = 0; changed && i < changed->n; i++) {
		struct manifest_entry *e = manifest_get(&c->manifest, changed->items[i]);
		if (e)
			hashmap_put(&delta.entries, e->target, e);
	}
	/* The renames it records on disk first (publish.h). */
	int rc = publish_sync_dirs(c->tree->fd, err);
	if (rc == 0)
		rc = changed ? manifest_save_delta(&delta, NULL, gone, c->tree, err)
			     : manifest_save_removing(&c->manifest, gone, c->tree, err);
	test_pause("CGISNAP_TEST_PAUSE_SAVED");
	bool all_dropped = true;
	size_t n;
	if (rc == 0) {
		struct manifest_entry **v = manifest_sorted(gone, &n);
		for (size_t i = 0; i < n; i++)
			all_dropped &= drop_file(c, v[i]);
		free(v);
	}
	/* A removal that failed put its entry back: saved again before the
	 * pending rows (its pending removal among them) go. */
	if (rc == 0 && !all_dropped && changed) {
		hashmap_release(&delta.entries);
		size_t it = 0;
		void *v;
		while (hashmap_next(&gone->entries, &it, NULL, &v)) {
			struct manifest_entry *e = manifest_get(&c->manifest, ((struct manifest_entry *)v)->target);
			if (e)
				hashmap_put(&delta.entries, e->target, e);
		}
		rc = manifest_save_delta(&delta, NULL, NULL, c->tree, err);
	} else if (rc == 0 && !all_dropped) {
		rc = manifest_save(&c->manifest, c->tree, err);
	}
	hashmap_release(&delta.entries); /* borrowed: the entries stay the manifest's */
	/* The manifest now records every publish the pending rows held;
	 * the removals' pending rows go once the removals are on disk. */
	if (rc == 0)
		rc = publish_sync_dirs(c->tree->fd, err);
	if (rc == 0)
		rc = manifest_journal_reset(c->tree, err);
	/* The sources were handled up to now. */
	if (rc == 0 && manifest_rows_written(c->tree) != written_before)
		rc = manifest_set_handled(c->tree, err);
	c->res->rows_compared += manifest_rows_compared(c->tree) - compared_before;
	return rc;
}

/* Make this run's findings the tree's manifest, removing the files that
 * went away (prune: allowed to remove files of URLs that vanished or now
 * fail with 404/redirect), and save it. A full crawl's findings are the
 * whole manifest; an update's replace only the entries it rendered
 * (commit_update). */
static int commit_full(struct crawl *c, bool prune, char *err)
{
	int rc = 0, d;
	size_t n;
	/* Files to remove: only after the manifest without them is saved, so
	 * that a reader (serve) never finds an entry whose file is gone. They
	 * are saved as pending removals in the same transaction: a run
	 * killed before removing them leaves them to the next one. */
	struct manifest gone = MANIFEST_INIT;
	struct manifest_entry **old = manifest_sorted(&c->manifest, &n);
	c->res->commit_visited += (long)(n + manifest_count(&c->next));
	for (size_t i = 0; i < n && rc == 0; i++) {
		struct manifest_entry *o = old[i];
		struct manifest_entry *now = manifest_get(&c->next, o->target);
		if (!now) {
			if (!prune)
				manifest_put(&c->next, manifest_entry_dup(o));
			else if ((d = want_drop(c, o, err)) != 0)
				rc = d < 0 ? -1 : (manifest_put(&gone, manifest_entry_dup(o)), 0);
			continue;
		}
		keep_same_line(now, o);
		if (!o->key || (now->key && !strcmp(now->key, o->key)))
			continue;
		if (now->key || prune) { /* moved to another file, or gone */
			if ((d = want_drop(c, o, err)) != 0)
				rc = d < 0 ? -1 : (manifest_put(&gone, manifest_entry_dup(o)), 0);
		} else {
			manifest_put(&c->next, manifest_entry_dup(o)); /* keep serving the old page */
		}
	}
	free(old);
	manifest_release(&c->manifest);
	c->manifest = c->next;
	memset(&c->next, 0, sizeof c->next);
	/* The index of files by key is for the next run (begin_run makes
	 * it), if any: a snapshot ends here, watch's lazy manifest asks the
	 * database. Made now, it would add to the crawl's peak. */
	owned_release(c);
	c->owned_stale = true;
	free_claims(c); /* want_drop's: gone before the save, the crawl's peak */
	if (rc == 0)
		rc = save_and_drop(c, &gone, NULL, err);
	manifest_release(&gone);
	return rc;
}

/* An update's commit: only the entries the run rendered are looked at,
 * moved into the manifest in place and saved; every other page stays as
 * it is, unread, so that a batch's cost grows with the change and not
 * with the tree. */
static int commit_update(struct crawl *c, bool prune, char *err)
{
	int rc = 0, d;
	struct manifest gone = MANIFEST_INIT;
	struct strlist changed = STRLIST_INIT;
	size_t it = 0;
	const char *k;
	void *v;
	while (hashmap_next(&c->next.entries, &it, &k, &v)) {
		struct manifest_entry *now = v, *o = manifest_find(&c->manifest, k);
		c->res->commit_visited++;
		if (o) {
			keep_same_line(now, o);
			if (o->key && !(now->key && !strcmp(now->key, o->key))) {
				if (!now->key && !prune)
					continue; /* keep serving the old page */
				if (rc == 0 && (d = want_drop(c, o, err)) != 0) /* moved to another file, or gone */
					rc = d < 0 ? -1 : (manifest_put(&gone, manifest_entry_dup(o)), 0);
			}
		}
		strlist_add(&changed, k);
	}
	/* Taken even when the commit failed: their files are published. */
	for (size_t i = 0; i < changed.n; i++) {
		struct manifest_entry *now = hashmap_remove(&c->next.entries, changed.items[i]);
		struct manifest_entry *o = manifest_get(&c->manifest, changed.items[i]);
		if (o)
			owned_del(c, o);
		manifest_put(&c->manifest, now); /* frees o */
		owned_add(c, now);
	}
	manifest_release(&c->next); /* what was not taken: old pages kept */
	free_claims(c);
	if (rc == 0)
		rc = save_and_drop(c, &gone, &changed, err);
	manifest_release(&gone);
	strlist_clear(&changed);
	return rc;
}

int commit_run(struct crawl *c, bool prune, char *err)
{
	return c->update_mode ? commit_update(c, prune, err) : commit_full(c, prune, err);
}
