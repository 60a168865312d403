/* gather.c - what watch gathers into the pending batch: the sources'
 * events (a source gone or back among them), the signals, the requests
 * of 'cgisnap notify', and what a run's hold checks read. */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/signalfd.h>
#include <sys/stat.h>
#include <unistd.h>

#include "watcher.h"
#include "base/clock.h"
#include "base/log.h"
#include "base/relist.h"
#include "url/url.h"

/* Whether a changed path starts nothing: the renders wrote it and it is
 * as they left it (the site's own output: caches, indexes, logs, its
 * database's journal; recorder.h), or --ignore says so. A file the
 * renders write that someone else wrote since (an edit saved into the
 * database) is a change. */
bool watcher_ignored(struct watcher *w, const char *path)
{
	if (dep_recorder_own_change(&w->recorder, path))
		return true;
	return relist_match(w->ignore, w->nignore, path);
}

/* For the hold hook (stale.h), while renders run: how a file the renders
 * write is left is known only at the run's end, so any file a render
 * wrote is theirs; a write by someone else during the run is missed. */
bool watcher_stale_ignored(void *arg, const char *path)
{
	struct watcher *w = arg;
	if (dep_recorder_written(&w->recorder, path))
		return true;
	return relist_match(w->ignore, w->nignore, path);
}

/* A file closed empty: most likely truncated by a writer that writes
 * next (truncate then append, ': > f' then 'cat >> f'), so its save is
 * taken as under way until the quiet window passes. A file emptied on
 * purpose is published that much later. */
static bool closed_empty(const struct fsw_event *e)
{
	struct stat st;
	if (!(e->flags & FSW_CHANGED) || (e->flags & (FSW_WRITING | FSW_DIR | FSW_REMOVED)))
		return false;
	return lstat(e->path, &st) == 0 && S_ISREG(st.st_mode) && st.st_size == 0;
}

/* A change with nothing to finish (a signal, a notify, a poll) came now:
 * it starts (or extends) the pending batch. */
void watcher_note_activity(struct watcher *w)
{
	settle_note_now(&w->settle, now_ms());
}

/* Take a string out of a list (its first copy). */
static void strlist_take_out(struct strlist *l, const char *s)
{
	for (size_t i = 0; i < l->n; i++)
		if (!strcmp(l->items[i], s)) {
			free(l->items[i]);
			memmove(&l->items[i], &l->items[i + 1], (l->n - i - 1) * sizeof *l->items);
			l->n--;
			return;
		}
}

/* A source went missing or came back. */
static void source_event(struct watcher *w, const struct fsw_event *e)
{
	if (e->flags & FSW_GONE) {
		if (!strlist_contains(&w->missing, e->path)) {
			strlist_add(&w->missing, e->path);
			log_error("source '%s' is missing: pages are neither re-rendered nor pruned until it is back",
				  e->path);
		}
		return;
	}
	strlist_take_out(&w->missing, e->path);
	w->full_reason = SOURCE_BACK_REASON;
	/* A source comes back by a rename or by a copy still being made
	 * (cp -a, a deploy): the re-crawl waits for the tree's quiet window,
	 * capped from now, not from a change made while it was missing, so
	 * that it does not read half a copy. */
	settle_note_back(&w->settle, now_ms());
	if (!w->missing.n)
		log_info("source '%s' is back: re-crawling", e->path);
	else
		log_info("source '%s' is back: re-crawling when '%s' is too", e->path, w->missing.items[0]);
}

/* Add events to the pending batch. */
static void take(struct watcher *w, const struct fsw_events *ev)
{
	for (size_t i = 0; i < ev->n; i++) {
		const struct fsw_event *e = &ev->items[i];
		if (e->flags & (FSW_GONE | FSW_BACK)) {
			source_event(w, e);
			continue;
		}
		if (e->flags & FSW_OVERFLOW) {
			if (!w->full_reason)
				log_warn("inotify dropped events (its queue overflowed): re-crawling everything");
			w->full_reason = "the inotify event queue overflowed, changes were lost";
			stale_note(&w->stale, NULL, FSW_OVERFLOW, now_ms());
			watcher_note_activity(w);
			continue;
		}
		if (watcher_ignored(w, e->path))
			continue;
		log_debug("change: %s%s%s%s %s", e->flags & FSW_CHANGED ? "W" : "",
			  e->flags & FSW_CREATED ? "C" : "", e->flags & FSW_REMOVED ? "D" : "",
			  e->flags & FSW_DIR ? "/" : "", e->path);
		changes_add(&w->pending, e->path, e->flags);
		long long now = now_ms();
		unsigned shared = dep_recorder_written(&w->recorder, e->path) ? SETTLE_SHARED : 0;
		settle_note(&w->settle, e->path, e->flags | shared | (closed_empty(e) ? FSW_WRITING : 0), now);
		stale_note(&w->stale, e->path, e->flags, now);
	}
}

/* After a crawl run: the events its hold checks read are the next
 * batch's, and so are the pages it held (stale.h): each is rendered
 * again with the change that held it, or when the file it read is
 * closed, or STALE_HELD_RETRY_MS after the run at the latest (the event
 * that held it may have been the last of a save into a file the renders
 * write too, taken for theirs once the run ended). */
void watcher_take_early(struct watcher *w, const struct crawl_result *res)
{
	char err[ERR_LEN];
	struct fsw_events ev = FSW_EVENTS_INIT;
	long long retry_at;
	if (stale_take_early(&w->stale, &ev, &retry_at, err) < 0)
		log_warn("%s: the pages rendered since were held", err);
	take(w, &ev);
	fsw_events_clear(&ev);
	for (size_t i = 0; i < res->held_targets.n; i++)
		changes_add_url(&w->pending, res->held_targets.items[i]);
	/* Due then, or sooner with an event: a change noted at a time to
	 * come makes a batch due at that time (settle.h). */
	if (res->held_targets.n)
		settle_note_now(&w->settle, retry_at ? retry_at : now_ms() + STALE_HELD_RETRY_MS);
}

/* Add what the kernel reported to the pending batch. */
int watcher_take_events(struct watcher *w, char *err)
{
	struct fsw_events ev = FSW_EVENTS_INIT;
	int rc = srcwatch_read(w->fsw, &ev, err);
	take(w, &ev);
	fsw_events_clear(&ev);
	return rc;
}

/* Every source is there now (looked at, not only told by events: a parent
 * directory moved, the events not read yet). */
bool watcher_sources_present(struct watcher *w)
{
	struct fsw_events ev = FSW_EVENTS_INIT;
	srcwatch_check(w->fsw, &ev);
	take(w, &ev);
	fsw_events_clear(&ev);
	return w->missing.n == 0;
}

/* The crawl's question before it removes files, asked after the renders:
 * a source that vanished meanwhile made its pages fail, not go. */
bool watcher_removal_ok(void *arg)
{
	struct watcher *w = arg;
	w->removal_refused = w->missing.n || !srcwatch_intact(w->fsw);
	return !w->removal_refused;
}

/* After a run that found a source gone: what it rendered without the
 * source is rendered again when the source is back. */
void watcher_note_refused_removal(struct watcher *w)
{
	if (!w->removal_refused)
		return;
	log_warn("a source went missing during the run: nothing was removed");
	w->full_reason = SOURCE_BACK_REASON;
	w->removal_refused = false;
}

/* SIGINT/SIGTERM: stop; SIGUSR1: a full re-crawl is due. */
void watcher_take_signals(struct watcher *w)
{
	struct signalfd_siginfo si;
	while (read(w->sigfd, &si, sizeof si) == (ssize_t)sizeof si) {
		if (si.ssi_signo == SIGUSR1) {
			w->full_reason = "SIGUSR1 received";
			watcher_note_activity(w);
			if (w->missing.n)
				log_info("SIGUSR1 received: the full re-crawl waits until every source is back");
		} else {
			w->stop = true;
		}
	}
}

/* A request on the control socket: its URLs and paths join the pending
 * batch, as changes do (control_fn). All or nothing: a URL of another
 * site refuses the whole request. */
int watcher_on_notify(void *arg, const struct control_request *rq, struct strlist *targets, char *reply,
		     size_t replylen, char *err)
{
	struct watcher *w = arg;
	for (size_t i = 0; i < rq->urls.n; i++) {
		char *abs = url_resolve(w->s.site.url, rq->urls.items[i]);
		char *t = abs ? site_target(&w->s.site, abs) : NULL;
		free(abs);
		if (!t)
			return err_set(err, "'%s' is not a URL of the site '%s'", rq->urls.items[i], w->s.site.url);
		strlist_add_owned(targets, t);
	}
	for (size_t i = 0; i < targets->n; i++)
		changes_add_url(&w->pending, targets->items[i]);
	/* A path told is a change of any kind: every page that read it,
	 * checked it or listed its directory. */
	for (size_t i = 0; i < rq->paths.n; i++)
		changes_add(&w->pending, rq->paths.items[i], FSW_CHANGED | FSW_CREATED | FSW_REMOVED);
	watcher_note_activity(w);
	log_debug("notified: %zu URL%s, %zu path%s", rq->urls.n, rq->urls.n == 1 ? "" : "s", rq->paths.n,
		  rq->paths.n == 1 ? "" : "s");
	int n = snprintf(reply, replylen, "%zu URL%s and %zu path%s queued", rq->urls.n, rq->urls.n == 1 ? "" : "s",
			 rq->paths.n, rq->paths.n == 1 ? "" : "s");
	if (w->missing.n && n >= 0 && (size_t)n < replylen)
		snprintf(reply + n, replylen - (size_t)n, " (held until the missing source '%.100s' is back)",
			 w->missing.items[0]);
	return 0;
}
