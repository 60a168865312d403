/* batch.c - watch's main loop and its batches: when one is due, what it
 * re-renders, its log line and the --exec hook. */
#include <errno.h>
#include <limits.h>
#include <malloc.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>

#include "watcher.h"
#include "base/clock.h"
#include "base/log.h"
#include "cli/cli.h"
#include "tree/manifest.h"
#include "base/xalloc.h"

/* A missing source is looked for this often besides its parent's events
 * (a parent watch the kernel refused: unreadable, the watch limit). */
#define MISSING_CHECK_MS 1000

/* The --exec hook after a batch that wrote or removed files (meta: the
 * metadata files before it); its failure is logged, never fatal. */
void watcher_run_exec(const struct watcher *w, const struct crawl_result *res, const struct exec_meta *meta)
{
	char err[ERR_LEN];
	if (!watch_options.exec)
		return;
	struct strlist written = STRLIST_INIT, removed = STRLIST_INIT;
	for (size_t i = 0; i < res->written_paths.n; i++)
		strlist_add(&written, res->written_paths.items[i]);
	for (size_t i = 0; i < res->removed_paths.n; i++)
		strlist_add(&removed, res->removed_paths.items[i]);
	exec_meta_changes(w->s.tree.meta_fd, meta, &written, &removed);
	if (written.n || removed.n) {
		exec_order(&written, &removed);
		int status = watch_exec(watch_options.exec, w->s.tree.path, &written, &removed, err);
		if (status < 0)
			log_error("%s", err);
		else if (status > 0)
			log_error("--exec '%s' exited with status %d", watch_options.exec, status);
	}
	strlist_clear(&written);
	strlist_clear(&removed);
}

/* The batch's line: what changed, what was rendered, how long it took
 * from the first change seen to the last file published. A poll alone
 * that changed nothing says so only with -v. */
static bool log_batch(const struct watcher *w, const char *full_reason, const struct crawl_result *res,
		      long long ms)
{
	struct buf b = BUF_INIT;
	size_t n = changes_count(&w->pending), nurls = w->pending.urls.n;
	const char *sep = "";
	if (w->poll_due && !n && !nurls && !full_reason && !res->changed_keys.n && !res->failed &&
	    !res->kept.n && !res->bound_note) {
		log_debug("poll: %ld URL%s re-rendered, nothing changed, %lld ms", res->pages,
			  res->pages == 1 ? "" : "s", ms);
		return false;
	}
	buf_adds(&b, "batch: ");
	if (n) {
		char *summary = changes_summary(&w->pending, SUMMARY_PATHS);
		buf_addf(&b, "%zu changed (%s)", n, summary);
		free(summary);
		sep = "; ";
	}
	if (nurls) {
		buf_addf(&b, "%s%zu notified (", sep, nurls);
		for (size_t i = 0; i < nurls && i < SUMMARY_PATHS; i++)
			buf_addf(&b, "%s%s", i ? ", " : "", w->pending.urls.items[i]);
		if (nurls > SUMMARY_PATHS)
			buf_addf(&b, " and %zu more", nurls - SUMMARY_PATHS);
		buf_adds(&b, ")");
		sep = "; ";
	}
	if (w->poll_due && !full_reason) {
		buf_addf(&b, "%spoll", sep);
		sep = "; ";
	}
	if (full_reason)
		buf_addf(&b, "%sfull re-crawl, %s", sep, full_reason);
	long rendered = crawl_rendered(res);
	buf_addf(&b, ": %ld URL%s re-rendered, %ld file%s changed, %ld removed", rendered,
		 rendered == 1 ? "" : "s", res->stored_new + res->stored_changed,
		 res->stored_new + res->stored_changed == 1 ? "" : "s", res->removed);
	if (res->failed)
		buf_addf(&b, ", %ld failed", res->failed);
	if (res->skipped)
		buf_addf(&b, ", %ld skipped", res->skipped);
	if (res->held)
		buf_addf(&b, ", %ld held (a source was being written)", res->held);
	buf_addf(&b, ", %lld ms", ms);
	log_info("%s", b.data);
	/* What the commit cost: with the change, not the tree (tests/t0583). */
	log_debug("commit: %ld entries visited, %lld manifest rows compared, %lld entries read, %zu kept",
		  res->commit_visited, res->rows_compared, res->entries_read,
		  manifest_count(crawl_manifest(w->crawl)));
	buf_release(&b);
	for (size_t i = 0; i < res->errors.n; i++)
		log_warn("%s", res->errors.items[i]);
	for (size_t i = 0; i < res->nfailures; i++)
		log_warn("failed: %s: %s", res->failures[i].target, res->failures[i].reason);
	for (size_t i = 0; i < res->kept.n; i++)
		log_warn("%s", res->kept.items[i]);
	if (res->bound_note)
		log_warn("%s", res->bound_note);
	crawl_report_stderr(&w->s, crawl_options.quiet);
	return true;
}

/* Forget the batch that was gathered; the notifies it held are answered
 * (res NULL: nothing needed re-rendering). */
static void batch_done(struct watcher *w, const struct crawl_result *res, const char *error)
{
	struct crawl_result none;
	memset(&none, 0, sizeof none);
	control_batch_done(w->control, res ? res : &none, error);
	changes_clear(&w->pending);
	settle_reset(&w->settle);
	w->poll_due = false;
}

/* A file the renders write (a database) is no page's dependency, and
 * its changes by the renders never come here (watcher_ignored): one that
 * did was written by someone else (an edit saved into the database), and
 * re-renders the pages whose renders wrote it. */
static void writers_targets(struct watcher *w, struct strlist *targets, struct strlist *why)
{
	for (size_t i = 0; i < w->pending.order.n; i++) {
		const char *path = w->pending.order.items[i];
		size_t before = targets->n;
		dep_recorder_writers(&w->recorder, path, targets);
		for (size_t k = before; why && k < targets->n; k++)
			strlist_add_owned(why, xasprintf("its render writes %s, which another program changed", path));
	}
}

/* Re-render what the pending changes affect (everything for a full
 * re-crawl), publish it, log it, and run the hook (the index of
 * recorded dependencies is the database the batch saved). */
static void run_batch(struct watcher *w)
{
	struct crawl_result res;
	struct strlist targets = STRLIST_INIT;
	char err[ERR_LEN];
	const char *full;
	int rc;

	if (!watcher_sources_present(w))
		return; /* held: the changes wait for the source */
	if (log_verbose()) {
		enum settle_why why;
		settle_due(&w->settle, &why);
		log_debug("batch due %s, %lld ms after its first change, %zu path%s left open", settle_why_text(why),
			  now_ms() - w->settle.first_ms, settle_open_count(&w->settle),
			  settle_open_count(&w->settle) == 1 ? "" : "s");
	}
	full = w->full_reason;
	/* Notified pages and polls name their pages: only a changed path
	 * with nothing to map it needs everything. */
	if (!full && changes_count(&w->pending) && !w->tracer && watch_rules_empty(&w->rules))
		full = "no dependencies are known (no tracing, no --depends or --always)";
	if (!full) {
		struct strlist why = STRLIST_INIT;
		if (deps_targets_why(&w->index, &w->rules, &w->s.site, &w->pending, &targets,
				     log_verbose() ? &why : NULL) < 0)
			full = "the tree's dependencies could not be read";
		writers_targets(w, &targets, log_verbose() ? &why : NULL);
		/* -v: why each page is re-rendered, before its render says what it gave. */
		for (size_t i = 0; i < why.n; i++)
			log_info("re-render %s: %s", targets.items[i], why.items[i]);
		strlist_clear(&why);
		if (w->poll_due) {
			struct strlist polled = STRLIST_INIT;
			deps_poll_targets(&w->rules, &w->s.site, crawl_manifest(w->crawl), &polled);
			for (size_t i = 0; i < polled.n; i++)
				if (!strlist_contains(&targets, polled.items[i]))
					strlist_add(&targets, polled.items[i]);
			strlist_clear(&polled);
		}
		if (!targets.n && !full) {
			char *summary = changes_summary(&w->pending, SUMMARY_PATHS);
			log_debug("no page depends on %s", summary);
			free(summary);
			batch_done(w, NULL, NULL);
			watcher_state_advance(w);
			return;
		}
	}
	struct exec_meta meta;
	exec_meta_snap(w->s.tree.meta_fd, &meta);
	stale_begin_run(&w->stale);
	rc = watcher_crawl(w, full ? NULL : &targets, &res, err);
	w->batches++;
	bool logged = log_batch(w, full, &res, now_ms() - w->settle.first_ms);
	/* A batch that changed nothing writes nothing: only full crawls
	 * are recorded as the tree's last run. */
	if (full)
		crawl_record_run(&w->s.tree, "watch (full re-crawl)", &res,
				 rc < 0 || res.failed || res.errors.n ? EXIT_PARTIAL : 0);
	w->full_reason = NULL;
	watcher_note_refused_removal(w);
	if (rc < 0) {
		/* The manifest may not match the tree now: the next change
		 * brings everything back in step. */
		log_error("%s", err);
		w->full_reason = "the last batch could not write the tree";
	}
	for (size_t i = 0; logged && i < res.rendered.n && log_verbose(); i++)
		log_debug("rendered %s", res.rendered.items[i]);
	/* The sources were handled up to now (initial_crawl_reason asks),
	 * unless a signal cut the batch short. */
	bool whole = rc == 0 && !res.not_reached;
	if (whole && changes_count(&w->pending) && manifest_set_handled(&w->s.tree, err) < 0)
		log_warn("%s", err);
	/* After every batch, or the log grows with each; whole for a mirror
	 * the hook copies tree.db to, waiting for no reader otherwise. */
	if (manifest_checkpoint(&w->s.tree, watch_options.exec != NULL, err) < 0)
		log_warn("%s", err);
	watcher_run_exec(w, &res, &meta);
	batch_done(w, &res, rc < 0 ? err : NULL);
	watcher_take_early(w, &res);
	crawl_result_release(&res);
	strlist_clear(&targets);
	if (whole)
		watcher_state_advance(w);
	/* A batch allocates and frees much on its render threads, each with
	 * a malloc arena of its own (a full re-crawl, big pages): what they
	 * freed goes back to the system between batches. */
	malloc_trim(0);
}

/* ms until the next --poll; -1 without --poll. */
static int poll_wait(const struct watcher *w)
{
	if (!w->poll_ms)
		return -1;
	long long left = w->next_poll_ms - now_ms();
	return left < 0 ? 0 : left > INT_MAX ? INT_MAX : (int)left;
}

/* The sooner of two poll(2) timeouts (-1: none). */
static int sooner(int a, int b)
{
	return a < 0 ? b : b < 0 ? a : a < b ? a : b;
}

/* ms until the pending batch is due (settle.h); -1 when nothing is
 * pending. */
static int batch_wait(const struct watcher *w)
{
	enum settle_why why;
	long long due = settle_due(&w->settle, &why);
	if (why == SETTLE_NONE)
		return -1;
	long long left = due - now_ms();
	return left < 0 ? 0 : left > INT_MAX ? INT_MAX : (int)left;
}

/* The peers that asked for idle, with the events queued so far read: ok
 * once no batch is pending (a held page's retry is one); an error when
 * what watch read cannot all be published now. */
static void answer_idle(struct watcher *w)
{
	char why[ERR_LEN];
	if (w->missing.n) {
		snprintf(why, sizeof why, "source '%s' is missing: changes wait until it is back",
			 w->missing.items[0]);
		control_idle(w->control, why);
	} else if (batch_wait(w) >= 0) {
		return; /* answered after that batch */
	} else if (w->full_reason) {
		snprintf(why, sizeof why, "not all published (%s): a full re-crawl runs with the next change",
			 w->full_reason);
		control_idle(w->control, why);
	} else {
		control_idle(w->control, NULL);
	}
}

/* Wait for changes and signals, run batches when they are due; 0 when a
 * signal stopped it, -1 when watching failed (logged). */
int watcher_loop(struct watcher *w)
{
	char err[ERR_LEN];
	while (!w->stop) {
		if (control_idle_waiting(w->control)) {
			if (watcher_take_events(w, err) < 0)
				return log_error("%s", err), -1;
			if (w->missing.n)
				watcher_sources_present(w);
			answer_idle(w);
		}
		struct pollfd pfd[2 + 1 + CONTROL_MAX_CLIENTS] = { { srcwatch_fd(w->fsw), POLLIN, 0 },
								   { w->sigfd, POLLIN, 0 } };
		size_t nctl = control_pollfds(w->control, pfd + 2, 1 + CONTROL_MAX_CLIENTS);
		/* While a source is missing only its return starts a batch. */
		int timeout = w->missing.n ? MISSING_CHECK_MS : sooner(batch_wait(w), poll_wait(w));
		int ready = poll(pfd, 2 + nctl, timeout);
		if (ready < 0 && errno != EINTR)
			return err_sys(err, "cannot wait for changes"), log_error("%s", err), -1;
		if (ready < 0)
			continue; /* the revents are not to be read */
		if (pfd[1].revents)
			watcher_take_signals(w);
		if (w->stop)
			break;
		if (pfd[0].revents && watcher_take_events(w, err) < 0)
			return log_error("%s", err), -1;
		control_handle(w->control, pfd + 2, nctl, watcher_on_notify, w);
		if (w->missing.n)
			watcher_sources_present(w);
		if (w->missing.n)
			continue;
		if (w->poll_ms && poll_wait(w) == 0) {
			/* A poll runs at once, with whatever is pending. */
			w->poll_due = true;
			watcher_note_activity(w);
			run_batch(w);
			w->next_poll_ms = now_ms() + w->poll_ms;
		} else if (w->settle.first_ms && batch_wait(w) == 0) {
			run_batch(w);
		}
	}
	return 0;
}
