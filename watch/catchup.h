/* catchup.h - what changed in the sources while nobody watched: between
 * the tree's last run (depstate.h's since: a snapshot's start, or the
 * last moment a watch had handled every change) and this watch's start,
 * as the changes a batch takes (deps.h), so that watch starts at once
 * and re-renders only what those changes touch.
 *
 * inotify's view is rebuilt from the files' times:
 *   - every file under a source whose ctime or mtime is later than since
 *     (less CATCHUP_SLACK_MS: the kernel stamps with a coarse clock) is
 *     changed and created (it may be new: the pages that checked it or
 *     listed its directory too); a directory likewise, unless the
 *     renders wrote into it (a cache directory's times are theirs);
 *   - every recorded dependency under a source that is gone now, when
 *     its directory changed since (or went too), is removed: what was
 *     deleted leaves no file to look at, only its directory's times; a
 *     path a page found missing before and still does (an A
 *     dependency) is no change.
 * A rename in keeps its mtime but gets a new ctime: both are compared.
 */
#ifndef CGISNAP_WATCH_CATCHUP_H
#define CGISNAP_WATCH_CATCHUP_H

#include <stdbool.h>
#include <time.h>

#include "base/buf.h"
#include "deps.h"
#include "tree/manifest.h"

#define CATCHUP_SLACK_MS 10

/* Add to out the changes under sources (absolute, real paths) since
 * since, in path order; skip(arg, path) true drops a path (the renders'
 * own writes, --ignore): it is called from several threads at once (the
 * sources' directories are scanned side by side). The recorded dependencies are read from t's database, set
 * by set of the directories that changed (manifest_each_set): the cost
 * grows with the directories, not with the pages. -1 with err when the
 * database cannot be read (what was found is in out). */
int catchup_changes(const struct strlist *sources, struct tree *t, const struct timespec *since,
		    bool (*skip)(void *arg, const char *path), void *arg, struct changes *out, char *err);

#endif
