/* scan.h - one walk over a source (a directory tree or a single file):
 * how many directories it has (each needs an inotify watch) and when its
 * newest file was modified (is the snapshot older than its sources?). */
#ifndef CGISNAP_WATCH_SCAN_H
#define CGISNAP_WATCH_SCAN_H

#include <time.h>

struct scan_stats {
	long dirs;              /* directories, the top one included */
	long files;             /* everything else */
	struct timespec newest; /* latest mtime of a file (not a directory); 0 when none */
};

/* Add what is under path to st (symbolic links are not followed;
 * unreadable directories are counted but not entered). A path that does
 * not exist adds nothing. The caller zeroes st before the first call. */
void scan_path(const char *path, struct scan_stats *st);

/* a later than b */
int timespec_after(const struct timespec *a, const struct timespec *b);

#endif
