/* inotify.h - watching the site's sources for changes: whole directory
 * trees and single files, as a stream of "this path changed" events. The
 * only file of watch that includes <sys/inotify.h> is inotify.c.
 *
 * Steps:
 *   1. fswatch_new(), then fswatch_add() for each source: a directory is
 *      watched with everything below it (symbolic links are not
 *      followed); a file is watched through its directory, so that it
 *      survives being replaced by a rename (SQLite, editors).
 *   2. poll fswatch_fd() for POLLIN; fswatch_read() appends what is ready.
 *   3. fswatch_free().
 *
 * New directories are watched as they appear, and the files already in
 * them (created before the watch was added) are reported as created;
 * directories deleted or moved away lose their watches. When the kernel's
 * event queue overflows, an FSW_OVERFLOW event says that changes were
 * lost, and every source is scanned again for directories to watch.
 *
 * A source itself going away (deleted, moved or renamed away, one of its
 * parent directories moved, a directory replaced by another) is reported
 * once as FSW_GONE, not as the removal of its files: the caller decides
 * what a missing source means. While it is missing, its nearest existing
 * parent directory is watched; when it is there again it is watched
 * again (its files are not reported: anything may have changed) and
 * FSW_BACK says so. The parents of the sources are watched only for
 * moving away (IN_MOVE_SELF), so a busy parent (/tmp) costs nothing.
 */
#ifndef CGISNAP_WATCH_INOTIFY_H
#define CGISNAP_WATCH_INOTIFY_H

#include <stdbool.h>
#include <stddef.h>

/* What happened to a path (flags may combine). */
enum {
	FSW_CHANGED = 1,  /* content written (closed after writing, modified) */
	FSW_CREATED = 2,  /* the name appeared: created, moved or renamed in */
	FSW_REMOVED = 4,  /* the name went away: deleted, moved or renamed out */
	FSW_DIR = 8,      /* the path is a directory */
	FSW_OVERFLOW = 16, /* events were lost (path NULL): anything may have changed */
	FSW_GONE = 32,     /* a source (path: as given to fswatch_add) is missing now */
	FSW_BACK = 64      /* a missing source is there again, and watched */
};

struct fsw_event {
	unsigned flags;
	char *path; /* absolute; NULL for FSW_OVERFLOW */
};

/* A growing list of events; paths are owned by the list. */
struct fsw_events {
	struct fsw_event *items;
	size_t n, cap;
};

#define FSW_EVENTS_INIT { NULL, 0, 0 }

void fsw_events_add(struct fsw_events *ev, unsigned flags, const char *path);
void fsw_events_clear(struct fsw_events *ev);

struct fswatch;

/* A watcher with nothing watched yet; NULL with err when inotify cannot be
 * set up ("cannot start inotify: Too many open files"). */
struct fswatch *fswatch_new(char *err);

/* Watch path (absolute, symbolic links already resolved): a directory and
 * all below it, or one file. -1 with err when it cannot be watched; when
 * the kernel's watch limit is the reason, err is the message of
 * fswatch_limit_message() with the number of directories the sources
 * need. */
int fswatch_add(struct fswatch *w, const char *path, char *err);

/* The descriptor to poll (non-blocking). */
int fswatch_fd(const struct fswatch *w);

/* Append every event ready now to out (never blocks). 0, or -1 with err
 * when reading failed. Problems with a single new directory (it vanished,
 * the watch limit) do not fail the read: they are logged as warnings. A
 * source that went or came is checked by fswatch_check() at the end. */
int fswatch_read(struct fswatch *w, struct fsw_events *out, char *err);

/* Stat every source now and report what changed as fswatch_read would:
 * a source gone without an event (a parent directory moved while events
 * were not read yet) or back. Returns how many sources are missing. */
size_t fswatch_check(struct fswatch *w, struct fsw_events *out);

/* Every source is there, and each directory is still the one watched
 * (stat only: nothing is changed, nothing reported). */
bool fswatch_intact(const struct fswatch *w);

/* Directories of the sources watched now (the parents watched for a
 * source's sake are not counted). */
size_t fswatch_count(const struct fswatch *w);

void fswatch_free(struct fswatch *w);

/* The message for a full watch table: it names the kernel setting, its
 * value (limit, or -1 when unknown) and the watches the sources need
 * (one per directory), and suggests a value. The caller frees it. */
char *fswatch_limit_message(const char *path, long limit, long needed);

#endif
