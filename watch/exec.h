/* exec.h - the --exec hook: a shell command run after each batch that
 * wrote or removed files (rsync or rclone to mirrors, a CDN purge), told
 * exactly which tree paths changed, so that a mirror can be kept the same
 * as the tree byte for byte.
 *
 * It owns the hook's input format, and what of .cgisnap/ a mirror needs:
 *
 *   stdin, and the file $CGISNAP_WRITTEN: every path the batch wrote, one
 *     per line, relative to DIR, sorted: pages, their .gz siblings, and
 *     the files of .cgisnap/ that serve and the nginx and Apache
 *     configurations read (EXEC_META_FILES) when they changed. The list
 *     rsync --files-from=- and rclone copy --files-from - take as it is.
 *   the file $CGISNAP_REMOVED: every path the batch removed, files first,
 *     then the directories left empty, as "dir/", each before its parent,
 *     so that one pass of rm -f / rmdir in that order applies it.
 *
 * No path is in both lists. Keys hold no control characters (urlkey.h),
 * so a line is always one path. The files are memfds, readable as often
 * as the command likes; nothing is written to disk.
 */
#ifndef CGISNAP_WATCH_EXEC_H
#define CGISNAP_WATCH_EXEC_H

#include <stdbool.h>
#include <sys/types.h>
#include <time.h>

#include "base/buf.h"

/* The files under .cgisnap/ a mirror must have for serve (tree.db, which
 * watch checkpoints before the hook runs, so that it holds everything
 * committed; settings, 404.html) and the generated configurations
 * (404.html). The lock, the control socket, the profile and the rest are
 * watch's own. */
#define EXEC_META_FILES { "tree.db", "settings", "404.html" }
#define EXEC_NMETA 3

/* What the metadata files were before a batch: a changed file is one
 * whose inode, size or time differs (they are all replaced by rename). */
struct exec_meta_file {
	bool present;
	ino_t ino;
	off_t size;
	struct timespec mtime;
};
struct exec_meta {
	struct exec_meta_file f[EXEC_NMETA];
};

/* Record the state of the metadata files in the directory meta_fd. */
void exec_meta_snap(int meta_fd, struct exec_meta *m);

/* Add the metadata files that changed since before (".cgisnap/NAME") to
 * written, or to removed when they went away. */
void exec_meta_changes(int meta_fd, const struct exec_meta *before, struct strlist *written,
		       struct strlist *removed);

/* Sort and de-duplicate the lists as the hook gets them: written in
 * order, removed in reverse order (a directory's contents before it). */
void exec_order(struct strlist *written, struct strlist *removed);

/* Run cmd with /bin/sh -c in the directory dir, its stdin the lines of
 * written, $CGISNAP_WRITTEN and $CGISNAP_REMOVED naming the two lists
 * (/dev/fd/N of descriptors it inherits), and wait for it. Returns its
 * exit status (0..255), or -1 with err when it could not be run or was
 * killed by a signal ("'cmd' was killed by signal 9"). */
int watch_exec(const char *cmd, const char *dir, const struct strlist *written, const struct strlist *removed,
	       char *err);

#endif
