/* scan.h - one walk over a source (a directory tree or a single file):
 * how many directories it has (each needs an inotify watch) and when its
 * newest file was modified (is the snapshot older than its sources?). */
#ifndef CGISNAP_WATCH_SCAN_H
#define CGISNAP_WATCH_SCAN_H

#include <sys/stat.h>
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

/* For each entry of the directory open as dirfd (closed here), "." and
 * ".." left out, one gone meanwhile skipped: fn(arg, dirfd, name, its
 * lstat). Descriptors, not paths: no length limit. */
void scan_each(int dirfd, void (*fn)(void *arg, int dirfd, const char *name, const struct stat *sb),
	       void *arg);

/* a later than b */
int timespec_after(const struct timespec *a, const struct timespec *b);

#endif
