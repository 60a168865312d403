/* srcwatch.h - watching the site's sources for changes: whole directory
 * trees and single files, as a stream of "this path changed" events, on
 * top of lib/base/fswatch.h (which holds the inotify mechanism: watches, the
 * events' paths, trees kept watched).
 *
 * Steps:
 *   1. srcwatch_new(), then srcwatch_add() for each source: a directory is
 *      watched with everything below it (symbolic links are not
 *      followed); a file is watched through its directory, so that it
 *      survives being replaced by a rename (SQLite, editors).
 *   2. poll srcwatch_fd() for POLLIN; srcwatch_read() appends what is ready.
 *   3. srcwatch_free().
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
 * moving away, so a busy parent (/tmp) costs nothing.
 */
#ifndef CGISNAP_WATCH_SRCWATCH_H
#define CGISNAP_WATCH_SRCWATCH_H

#include <stdbool.h>
#include <stddef.h>

#include "base/fswatch.h"

/* The events are struct fsw_events with the FSW_* flags of fswatch.h, and
 * these two of the sources' own. */
enum {
	FSW_GONE = FSW_FIRST_FREE,       /* a source (path: as given to srcwatch_add) is missing now */
	FSW_BACK = FSW_FIRST_FREE << 1   /* a missing source is there again, and watched */
};

struct srcwatch;

/* A watcher with nothing watched yet; NULL with err when inotify cannot be
 * set up ("cannot start inotify: Too many open files"). */
struct srcwatch *srcwatch_new(char *err);

/* Watch path (absolute, symbolic links already resolved): a directory and
 * all below it, or one file. -1 with err when it cannot be watched; when
 * the kernel's watch limit is the reason, err is the message of
 * srcwatch_limit_message() with the number of directories the sources
 * need. */
int srcwatch_add(struct srcwatch *w, const char *path, char *err);

/* The descriptor to poll (non-blocking). */
int srcwatch_fd(const struct srcwatch *w);

/* Append every event ready now to out (never blocks). 0, or -1 with err
 * when reading failed. Problems with a single new directory (it vanished,
 * the watch limit) do not fail the read: they are logged as warnings. A
 * source that went or came is checked by srcwatch_check() at the end. */
int srcwatch_read(struct srcwatch *w, struct fsw_events *out, char *err);

/* Stat every source now and report what changed as srcwatch_read would:
 * a source gone without an event (a parent directory moved while events
 * were not read yet) or back. Returns how many sources are missing. */
size_t srcwatch_check(struct srcwatch *w, struct fsw_events *out);

/* Every source is there, and each directory is still the one watched
 * (stat only: nothing is changed, nothing reported). */
bool srcwatch_intact(const struct srcwatch *w);

/* Directories of the sources watched now (the parents watched for a
 * source's sake are not counted). */
size_t srcwatch_count(const struct srcwatch *w);

void srcwatch_free(struct srcwatch *w);

/* The message for a full watch table: it names the kernel setting, its
 * value (limit, or -1 when unknown) and the watches the sources need
 * (one per directory), and suggests a value. The caller frees it. */
char *srcwatch_limit_message(const char *path, long limit, long needed);

#endif
