/* publish.h - putting files into the tree so that readers (serve, nginx,
 * rsync) only ever see a whole old file or a whole new one.
 *
 * Every write goes to a temporary dotfile in the target's directory and is
 * renamed over the key (git's lockfile idea). A file whose bytes did not
 * change is not touched at all, so its mtime, ETag and rsync state stay.
 * A .gz sibling (zlib level 9, gzip format, what nginx gzip_static reads)
 * is written with the file when asked, given the same mtime, and removed
 * when no longer wanted, so a stale .gz never sits beside a newer page.
 *
 * No symbolic link is ever followed, whether it points into the tree or
 * out of it: every directory on the way to a key is opened component by
 * component with O_NOFOLLOW (created when missing), and the temp file, the
 * rename, the .gz and the removal all act relative to the last one. A
 * link in the way is an error naming it ("'x' is a symbolic link: ...").
 *
 * Who owns a file is the caller's record (the manifest: its size and
 * sha256); publish_owner() and publish_remove() compare the file on disk
 * with that record, so that cgisnap never removes a file it did not write.
 * Temp files are named .cgisnap-tmp-PID-N; publish_clean_temps() removes
 * those an interrupted run left.
 */
#ifndef CGISNAP_PUBLISH_H
#define CGISNAP_PUBLISH_H

#include <stdbool.h>
#include <stddef.h>

#include "base/buf.h"

enum publish_result {
	PUBLISH_UNCHANGED = 0,
	PUBLISH_NEW = 1,
	PUBLISH_CHANGED = 2,
};

/* Below this size a .gz sibling is not worth it. */
#define PUBLISH_GZIP_MIN 1024

/* Where a publish or removal notes each tree path it wrote (renamed into
 * place: the key, its .gz) or removed (the key, its .gz, and each
 * directory it left empty, as "dir/"), for watch --exec's lists. Either
 * list may be NULL; nothing is locked: one per thread. */
struct publish_paths {
	struct strlist *written, *removed;
};

/* Durability (on by default): each file's bytes are synced (fdatasync)
 * before its rename, and the directories whose names changed (renamed
 * in, removed, made) are noted, to be synced (fsync) by
 * publish_sync_dirs before the caller's next save records them (tree.db
 * is synchronous FULL): so no power cut takes back a publish once
 * recorded, and a failed sync fails that save, not a publish already in
 * place (whose pending row then stays for the next writer).
 * publish_set_sync(false) (--no-sync) drops both: a power cut may then
 * leave files the manifest does not match. Process-wide. */
void publish_set_sync(bool on);
bool publish_sync(void);
/* Sync the directories noted since the last call (treefd: the tree they
 * are in); 0, or -1 with err naming one that failed (those not synced
 * stay noted). Call it after the publishes a save records, before it. */
int publish_sync_dirs(int treefd, char *err);

/* Make key (relative to the directory treefd) hold data[0..len); parent
 * directories are created. With gzip, a key.gz sibling is kept in step
 * when len >= PUBLISH_GZIP_MIN (and removed otherwise). Returns a
 * publish_result, or -1 with err. */
int publish_data(int treefd, const char *key, const void *data, size_t len, bool gzip, char *err);

/* The same for the contents of the file src (a static file under --root). */
int publish_copy(int treefd, const char *key, const char *src, bool gzip, char *err);

/* What publish_owner() finds at a key. */
enum publish_owner_result {
	PUBLISH_ABSENT = 0,  /* nothing there */
	PUBLISH_OURS = 1,    /* the recorded file */
	PUBLISH_FOREIGN = 2, /* something else: another size or hash, a link, a directory */
};

/* Compare the file at key with what was recorded of it: bytes (< 0:
 * nothing recorded, so any file there is foreign) and, when sha256 is
 * non-empty, its hash. A publish_owner_result, or -1 with err when the
 * path cannot be walked (a symbolic link on the way). */
int publish_owner(int treefd, const char *key, long long bytes, const char *sha256, char *err);

/* publish_remove() left the file alone: it is not what was recorded. */
#define PUBLISH_KEPT 1

/* The same for len bytes of the file fd from offset off (a body kept in a
 * temporary file, an open static file), streamed: compared with the
 * published file, copied and gzipped a chunk at a time, never held in
 * memory whole. fd is only read (pread), never closed. */
int publish_fd(int treefd, const char *key, int fd, long long off, long long len, bool gzip, char *err);
/* publish_data and publish_fd noting the paths they wrote or removed
 * (paths NULL: as without). */
int publish_data_noted(int treefd, const char *key, const void *data, size_t len, bool gzip,
		       struct publish_paths *paths, char *err);
int publish_fd_noted(int treefd, const char *key, int fd, long long off, long long len, bool gzip,
		     struct publish_paths *paths, char *err);

/* Remove key and its .gz, then the parent directories it leaves empty.
 * With bytes >= 0 the file is removed only when publish_owner() would say
 * PUBLISH_OURS; otherwise nothing is touched and PUBLISH_KEPT returned. A
 * missing file is not an error (0); -1 with err when a symbolic link is on
 * the way or a removal fails. */
int publish_remove(int treefd, const char *key, long long bytes, const char *sha256, char *err);
/* The same, noting what it removed (only what was there). */
int publish_remove_noted(int treefd, const char *key, long long bytes, const char *sha256,
			 struct publish_paths *paths, char *err);

/* Read the file at key (at most max bytes: a bigger one is an error)
 * into out, following no symbolic link. 0, or -1 with err. */
int publish_read(int treefd, const char *key, long long max, struct buf *out, char *err);

/* Remove leftover temp files in the directory of key (an interrupted
 * run's); call only while holding the tree's lock. Returns how many. */
int publish_clean_temps(int treefd, const char *key);
/* Remove every temp file anywhere in the tree (no symbolic link is
 * followed; at most PUBLISH_TEMP_DEPTH directories down): what a writer
 * that died left where no pending row leads (a .gz repaired beside an
 * unchanged page). Returns how many went. */
#define PUBLISH_TEMP_DEPTH 64
long publish_clean_all_temps(int treefd);

/* Write a whole file atomically (temp + rename), whatever it held before:
 * for cgisnap's own files under .cgisnap/. */
int write_file_atomic(int dirfd, const char *name, const void *data, size_t len, char *err);

#endif
