/* watcher.h - the state of one 'cgisnap watch' run, shared by the files
 * that make the command: watch.c (the command line), setup.c (the set-up
 * and release), start.c (the initial snapshot or catch-up), gather.c (the
 * changes, signals and notifies gathered into the pending batch) and
 * batch.c (the main loop and its batches).
 *
 * Steps (cmd_watch):
 *   1. watcher_open(): sources, rules, the tree, the crawl, the watches.
 *   2. watcher_start(): the initial snapshot, or the catch-up as the first
 *      batch; then the "watching" line.
 *   3. watcher_loop() until a signal stops it.
 *   4. watcher_release(), also after a failed step.
 */
#ifndef CGISNAP_WATCH_WATCHER_H
#define CGISNAP_WATCH_WATCHER_H

#include <regex.h>
#include <signal.h>
#include <stdbool.h>
#include <stddef.h>

#include "base/buf.h"
#include "cli/crawlopts.h"
#include "control.h"
#include "crawl/crawl.h"
#include "deps.h"
#include "deps/recorder.h"
#include "deps/depstate.h"
#include "exec.h"
#include "settle.h"
#include "srcwatch.h"
#include "stale.h"

#define DEFAULT_DEBOUNCE_MS 100
/* The quiet that ends a save that may be under way: an editor's steps
 * (write a temporary, rename it, remove the backup) come within a few ms
 * of each other; --debounce is the cap. */
#define SETTLE_WINDOW_MS 25
/* A tree going or coming (settle.h: a name removed, a source back) is
 * waited for longer, for its quiet, whatever --debounce says: an rm -rf
 * or a cp -a of a source may pause under load for far longer than an
 * editor's steps, and a batch started half way would prune, or re-crawl
 * half a copy. Its cap bounds a source that never rests. */
#define TREE_WINDOW_MS 500
#define TREE_CAP_MS 10000
/* Changed paths named in a batch's log line. */
#define SUMMARY_PATHS 3
#define SOURCE_BACK_REASON "a missing source came back"

/* The options of watch's own (watch.c's table fills it). */
struct watch_options {
	struct strlist sources, depends, always, ignore;
	long debounce_ms, poll_s, settle_ms;
	char *exec;
	char *source_command;
	bool no_trace;
};
extern struct watch_options watch_options;

struct watcher {
	struct crawl_setup s;
	struct crawl *crawl;
	struct dep_recorder recorder; /* the crawl's render hooks */
	struct stale stale;           /* the crawl's hold hook: renders that may have read half a save */
	struct srcwatch *fsw;
	struct watch_rules rules;
	struct dep_index index;
	regex_t *ignore;
	size_t nignore;
	struct strlist sources; /* absolute, symbolic links resolved */
	struct strlist missing; /* sources missing now: no batch runs */
	bool removal_refused;   /* the last run found a source missing at its end */
	char *tracer;           /* NULL: no tracing */
	int sigfd;
	bool masked;            /* signals blocked: restore old_mask at the end */
	sigset_t old_mask;
	long debounce_ms;
	bool stop;
	volatile sig_atomic_t crawl_stop; /* the crawl's stop (crawl.h): set by watcher_crawl's guard */
	struct control *control; /* the socket 'cgisnap notify' talks to */
	long long poll_ms;       /* 0: no --poll */
	long long next_poll_ms;
	bool poll_due;           /* the next batch is (also) a poll */

	/* the batch being gathered */
	struct changes pending;
	struct settle settle;        /* when it is due; first_ms 0: nothing pending */
	const char *full_reason;     /* a full re-crawl is due, and why */
	long batches;
	struct exec_meta meta_at_start; /* before the settings were saved */

	/* The tree's dependencies are complete (depstate.h): as of since,
	 * recorded with these origin settings. */
	bool have_state;
	struct depstate state;
	char fingerprint[65];
};

/* setup.c */

/* Everything up to the first wait. EXIT_USAGE (EXIT_BUSY: another cgisnap
 * holds the tree) with the error logged; args: the words left on the
 * command line, DIR last. */
int watcher_open(struct watcher *w, const struct strlist *args);
/* Free all of w, restoring the signal mask. */
void watcher_release(struct watcher *w);

/* start.c */

/* The full snapshot a stale or empty tree needs first, or the catch-up of
 * a tree whose dependencies are complete; -1 when the snapshot failed
 * (logged). */
int watcher_start(struct watcher *w);
/* Record that the dependencies are complete up to now, when every change
 * read is handled (depstate.h). */
void watcher_state_advance(struct watcher *w);

/* gather.c */

/* Whether a changed path starts nothing: the renders wrote it, or
 * --ignore says so; the second for the hold hook (stale.h). */
bool watcher_ignored(struct watcher *w, const char *path);
bool watcher_stale_ignored(void *arg, const char *path);
/* A change with nothing to finish (a signal, a notify, a poll) came now. */
void watcher_note_activity(struct watcher *w);
/* Add what the kernel reported to the pending batch; -1 with err. */
int watcher_take_events(struct watcher *w, char *err);
/* After a crawl run: what its hold checks read and the pages it held
 * join the next batch. */
void watcher_take_early(struct watcher *w, const struct crawl_result *res);
/* Every source is there now (stat, not only events). */
bool watcher_sources_present(struct watcher *w);
/* The crawl's removal check (crawl_set_removal_check), and the warning
 * after a run it refused. */
bool watcher_removal_ok(void *arg);
void watcher_note_refused_removal(struct watcher *w);
/* interrupt.c */

/* crawl_update of targets (NULL: crawl_full) into res, with SIGINT and
 * SIGTERM heard while it runs: either stops the crawl (renders under way
 * finish; res->interrupted) and sets w->stop. crawl_*'s return. */
int watcher_crawl(struct watcher *w, const struct strlist *targets, struct crawl_result *res, char *err);

/* Read the signals: a stop, or a full re-crawl due. */
void watcher_take_signals(struct watcher *w);
/* A request on the control socket (control_fn). */
int watcher_on_notify(void *arg, const struct control_request *rq, struct strlist *targets, char *reply,
		      size_t replylen, char *err);

/* batch.c */

/* The --exec hook after a run that wrote or removed files (meta: the
 * metadata files before it). */
void watcher_run_exec(const struct watcher *w, const struct crawl_result *res, const struct exec_meta *meta);
/* Wait for changes and signals, run batches when they are due; 0 when a
 * signal stopped it, -1 when watching failed (logged). */
int watcher_loop(struct watcher *w);

#endif
