/* start.c - watch's start: the initial snapshot a stale or empty tree
 * needs, or the catch-up of one whose dependencies are complete, and the
 * record that they are complete up to now (depstate.h). */
#include <malloc.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "watcher.h"
#include "base/clock.h"
#include "base/log.h"
#include "cli/cli.h"
#include "base/xalloc.h"
#include "catchup.h"
#include "scan.h"
#include "tree/manifest.h"

/* Why the tree needs a full snapshot before watching, or NULL when it is
 * as new as its sources (the manifest exists, holds recorded
 * dependencies when tracing is on, and is newer than every source file). */
static const char *initial_crawl_reason(struct watcher *w)
{
	if (manifest_empty(crawl_manifest(w->crawl)))
		return "the tree is empty";
	if (w->tracer) {
		/* A traced snapshot, or a watch, said its dependencies are
		 * complete: the changes since come from the files' times. */
		if (!w->have_state)
			return "the tree has no recorded dependencies";
		if (w->state.policy != DEPREC_POLICY)
			return "the tree's dependencies were recorded by another version of cgisnap";
		if (strcmp(w->state.origin, w->fingerprint))
			return "the tree's dependencies were recorded with other origin settings";
		return NULL;
	}
	struct timespec handled;
	char err[ERR_LEN];
	if (manifest_handled(&w->s.tree, &handled, err) != 0)
		return "the tree has no manifest";
	struct scan_stats st;
	memset(&st, 0, sizeof st);
	for (size_t i = 0; i < w->sources.n; i++)
		scan_path(w->sources.items[i], &st);
	if (timespec_after(&st.newest, &handled))
		return "the sources changed since the last snapshot";
	return NULL;
}

/* The dependencies are complete up to now when every change read is
 * handled: record it (depstate.h), so that a later start catches up from
 * here. The time is taken before the events are read: a change after it
 * may not be handled yet. Only with tracing: the dependencies are then
 * watch's own. */
void watcher_state_advance(struct watcher *w)
{
	char err[ERR_LEN];
	struct timespec now;
	if (!w->tracer)
		return;
	clock_gettime(CLOCK_REALTIME, &now);
	if (watcher_take_events(w, err) < 0)
		return; /* the main loop reads (and says) it again */
	if (w->settle.first_ms || w->full_reason || w->missing.n || w->removal_refused)
		return;
	w->state.policy = DEPREC_POLICY;
	memcpy(w->state.origin, w->fingerprint, sizeof w->state.origin);
	w->state.since = now;
	w->have_state = true;
	/* With how the renders left what they wrote, as a snapshot leaves
	 * it: a later start tells their writes from another program's. */
	struct strlist written = STRLIST_INIT;
	dep_recorder_written_lines(&w->recorder, &written);
	int rc = depstate_save_written(&w->s.tree, &written, err);
	strlist_clear(&written);
	if (rc < 0 || depstate_save(&w->s.tree, &w->state, err) < 0)
		log_warn("%s", err);
}

/* Whether a path the catch-up found starts nothing (catchup.h). */
static bool catch_up_skip(void *arg, const char *path)
{
	return watcher_ignored(arg, path);
}

/* A tree whose dependencies are complete: no re-crawl, only the changes
 * made since its last run, as the first batch. */
static void catch_up(struct watcher *w)
{
	char err[ERR_LEN];
	if (catchup_changes(&w->sources, &w->s.tree, &w->state.since, catch_up_skip, w, &w->pending, err) < 0) {
		/* Not knowing which dependency went, render every page. */
		log_error("%s", err);
		w->full_reason = "the tree's dependencies could not be read";
	}
	/* Published by a run killed before its save, new to the tree: what
	 * they read is not known, so their sources would never be followed. */
	const struct strlist *fresh = crawl_recovered_new(w->crawl);
	for (size_t i = 0; i < fresh->n; i++) {
		log_debug("recovered without dependencies: %s", fresh->items[i]);
		changes_add_url(&w->pending, fresh->items[i]);
	}
	size_t n = changes_count(&w->pending);
	for (size_t i = 0; i < n && log_verbose(); i++) {
		const char *path = w->pending.order.items[i];
		unsigned f = changes_flags(&w->pending, path);
		log_debug("changed since the last run: %s%s %s", f & FSW_REMOVED ? "D" : "W",
			  f & FSW_DIR ? "/" : "", path);
	}
	if (n) {
		char *summary = changes_summary(&w->pending, SUMMARY_PATHS);
		log_info("the tree's dependencies are complete: no initial snapshot; catching up with %zu path%s "
			 "changed since its last run (%s)", n, n == 1 ? "" : "s", summary);
		free(summary);
	} else {
		log_info("the tree's dependencies are complete and no source changed since its last run: no initial "
			 "snapshot");
	}
	if (!n && !fresh->n)
		return;
	if (fresh->n)
		log_info("rendering again %zu page%s an interrupted run published before recording what %s read",
			 fresh->n, fresh->n == 1 ? "" : "s", fresh->n == 1 ? "it" : "they");
	watcher_note_activity(w);
}

/* The full snapshot a stale or empty tree needs first. */
int watcher_start(struct watcher *w)
{
	char err[ERR_LEN];
	const char *why = NULL;
	int rc = 0;
	if (watcher_sources_present(w))
		why = initial_crawl_reason(w);
	if (w->missing.n) {
		/* gone since the set-up (logged): crawled when it is back */
	} else if (!why && w->tracer) {
		catch_up(w);
	} else if (!why) {
		log_info("the tree is newer than its sources: no initial snapshot");
	} else {
		struct crawl_result res;
		log_info("initial snapshot: %s", why);
		if (watcher_crawl(w, NULL, &res, err) < 0)
			rc = log_error("%s", err);
		bool whole = !res.not_reached;
		watcher_note_refused_removal(w);
		/* A mirror that started as a copy of the tree (or empty, for a
		 * tree made now) follows from the first snapshot on. */
		if (watch_options.exec && manifest_checkpoint(&w->s.tree, true, err) < 0)
			log_warn("%s", err);
		watcher_run_exec(w, &res, &w->meta_at_start);
		watcher_sources_present(w); /* one gone meanwhile is logged before the watching line */
		char *what = xasprintf("snapshot of %s into '%s'", w->s.site.url, w->s.tree.path);
		crawl_report(&res, what, crawl_options.quiet);
		crawl_report_stderr(&w->s, crawl_options.quiet);
		free(what);
		crawl_record_run(&w->s.tree, "watch (initial snapshot)", &res,
				 rc < 0 || res.failed || res.errors.n ? EXIT_PARTIAL : 0);
		watcher_take_early(w, &res);
		crawl_result_release(&res);
		/* The first crawl held every page it found (batch.c's
		 * malloc_trim, for the same reason). */
		malloc_trim(0);
		if (!whole)
			return rc; /* stopped: the next start crawls again */
	}
	if (w->tracer)
		dep_index_open(&w->index, &w->s.tree, crawl_manifest(w->crawl));
	if (!w->missing.n && rc == 0)
		watcher_state_advance(w); /* saved only when nothing is pending */
	w->next_poll_ms = now_ms() + w->poll_ms;
	log_info("watching %zu director%s of %zu source%s (%s)", srcwatch_count(w->fsw),
		 srcwatch_count(w->fsw) == 1 ? "y" : "ies", w->sources.n, w->sources.n == 1 ? "" : "s",
		 w->tracer ? "dependencies traced" : watch_rules_empty(&w->rules) ? "every change re-crawls"
										: "--depends/--always rules");
	return rc;
}
