/* stale.h - whether a render may have read half a save, so that its page
 * is held (crawl_hooks.hold) instead of published.
 *
 * A source written in place (printf > f: O_TRUNC, the writes, the close;
 * dd conv=notrunc; an application rewriting its file) is, for a while,
 * empty or half new. A batch cannot wait that out alone: the write may
 * begin after the batch started, while a page that reads the file is
 * rendering. So, after each render and before its page is stored, the
 * events that came meanwhile are read (and kept for the next batch), and
 * the page is held when one of them touches what it depends on (R: the
 * path; E and L: a name created or removed; C: anything in the
 * directory; a render that was not traced: any change), or when a file
 * it read is still open for writing (written, its close not seen yet;
 * for at most STALE_WRITING_MAX_MS: a file kept open for good, a log or
 * a database, holds nothing after that), or when a file it read is empty
 * and was changed after the run began or less than STALE_EMPTY_MS before
 * (a truncation can be seen before its event is queued; counted from the
 * run's start, not from the check, which a loaded machine may run late).
 * A source that is a single file (a database) holds nothing
 * (stale_add_file). A held page keeps what was
 * published before; the change that held it makes the next batch, which
 * renders it again (stale_take_early), or a retry when no event may come.
 *
 * Not covered: the bytes of a write that does not truncate (dd
 * conv=notrunc) read before the kernel queues its IN_MODIFY, a window of
 * one write call; a truncation made STALE_EMPTY_MS or more before the run
 * began whose event is still not queued when its page is checked.
 *
 * Steps:
 *   1. stale_init() with the watcher's sources and its ignore test.
 *   2. crawl_hooks.hold = stale_hold, hold_arg = s.
 *   3. stale_note() for every event the main loop takes (the set of
 *      files open for writing).
 *   4. stale_begin_run() just before each batch's crawl run.
 *   5. After each crawl run, stale_take_early(): the events read during
 *      it, to take as the next batch's.
 *   6. stale_release().
 */
#ifndef CGISNAP_WATCH_STALE_H
#define CGISNAP_WATCH_STALE_H

#include <pthread.h>
#include <stdbool.h>

#include "crawl/crawl.h"
#include "base/fswatch.h"
#include "base/hashmap.h"
#include "base/log.h"
#include "srcwatch.h"

/* How long a file written and not closed holds the pages that read it. */
#define STALE_WRITING_MAX_MS 2000
/* A source found empty, changed this soon before the run began (or
 * since), may be a truncation whose event is not queued yet (stale.c
 * says why): 100 ms was seen to be too short on a loaded machine. */
#define STALE_EMPTY_MS 1000
/* ... and the page is tried again when that window has passed, at the
 * soonest this much later, event or not. */
#define STALE_EMPTY_RETRY_MS 25
/* A page held for an event of its run is tried again this much later at
 * the latest: the event that held it may be the last of a save made
 * during the run into a file the renders write too (a database), which
 * is known as changed only then, so that no event after the run comes. */
#define STALE_HELD_RETRY_MS 1000

struct stale {
	pthread_mutex_t lock;       /* stale_hold runs on the render threads */
	struct srcwatch *fsw;       /* read during a run */
	bool traced;                /* the renders are traced: no dependencies means none */
	bool (*ignored)(void *arg, const char *path); /* the site's own writes, --ignore */
	void *arg;
	struct fsw_events early;    /* read during a run: the next batch's */
	struct hashmap own;         /* path -> flags: events on the site's own writes read during a
				     * run, judged after it (a write by another program since the
				     * render that wrote the file is a change) */
	struct hashmap writing;     /* path -> long long *: now_ms of its first write not closed */
	bool read_failed;           /* reading the events failed during the run: everything held */
	long long retry_at;         /* now_ms by which the held pages are tried again, event or not; 0: on events */
	long long run_start;        /* wall clock ms (as ctime) the run began; 0: none begun, the check's time counts */
	struct strlist files;       /* the sources that are single files: never held for */
	char err[ERR_LEN];
};

void stale_init(struct stale *s, struct srcwatch *fsw, bool traced, bool (*ignored)(void *arg, const char *path),
		void *arg);

/* A source that is one file, a database most likely (SQLite, written in
 * place by design, its readers kept consistent by its own locking): its
 * writes are changes, never a save to wait out, and hold nothing. */
void stale_add_file(struct stale *s, const char *path);

/* A crawl run begins now: a source emptied since, or just before, holds
 * the pages that read it empty, however late their check comes. Until
 * stale_take_early, which ends the run. */
void stale_begin_run(struct stale *s);

/* The crawl's hold hook (arg: the struct stale). */
bool stale_hold(void *arg, const struct manifest_entry *e, const struct origin_response *rs,
		const char *static_file);

/* An event taken (not ignored) at now_ms: a write not closed yet, or its
 * close, removal or replacement. */
void stale_note(struct stale *s, const char *path, unsigned flags, long long now);

/* Move the events read during the run to out (appended); *retry_at: the
 * now_ms by which the held pages' batch is due even without an event (a
 * source found just emptied may have been emptied on purpose; a file
 * open for writing may never be closed), 0 when their events bring it.
 * -1 with err when reading them failed (the caller reads again, and
 * says so). */
int stale_take_early(struct stale *s, struct fsw_events *out, long long *retry_at, char *err);

void stale_release(struct stale *s);

#endif
