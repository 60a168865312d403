/* publish.h - putting files into the tree so that readers (serve, nginx,
 * rsync) only ever see a whole old file or a whole new one.
 *
 * Every write goes to a temporary dotfile in the target's directory and is
 * renamed over the key (git's lockfile idea). A file whose bytes did not
 * change is not touched at all, so its mtime, ETag and rsync state stay.
 * A .gz sibling (zlib level 9, gzip format, what nginx gzip_static reads)
 * is written with the file when asked, given the same mtime, and removed
 * when no longer wanted, so a stale .gz never sits beside a newer page.
 */
#ifndef CGISNAP_PUBLISH_H
#define CGISNAP_PUBLISH_H

#include <stdbool.h>
#include <stddef.h>

enum publish_result {
	PUBLISH_UNCHANGED = 0,
	PUBLISH_NEW = 1,
	PUBLISH_CHANGED = 2,
};

/* Below this size a .gz sibling is not worth it. */
#define PUBLISH_GZIP_MIN 1024

/* Make key (relative to the directory treefd) hold data[0..len); parent
 * directories are created. With gzip, a key.gz sibling is kept in step
 * when len >= PUBLISH_GZIP_MIN (and removed otherwise). Returns a
 * publish_result, or -1 with err. */
int publish_data(int treefd, const char *key, const void *data, size_t len, bool gzip, char *err);

/* The same for the contents of the file src (a static file under --root). */
int publish_copy(int treefd, const char *key, const char *src, bool gzip, char *err);

/* Remove key and its .gz, then the parent directories it leaves empty.
 * A missing file is not an error. */
int publish_remove(int treefd, const char *key, char *err);

/* Write a whole file atomically (temp + rename), whatever it held before:
 * for cgisnap's own files under .cgisnap/. */
int write_file_atomic(int dirfd, const char *name, const void *data, size_t len, char *err);

#endif
