/* tree.h - a snapshot tree on disk: its directory, its lock and its
 * settings. Everything cgisnap keeps for itself lives in DIR/.cgisnap/:
 *
 *   tree.db    the manifest: one row per URL, what each page's render
 *              read, the publishes since the last save (SQLite, WAL
 *              mode: also tree.db-wal and tree.db-shm; manifest.h)
 *   settings   "name = value" lines: the site and query policy the tree
 *              was made with (site-url, alias, ignore-param, sort-query,
 *              canonical), so
 *              that serve and config canonicalise requests the same way
 *   profile    the site profile the tree was made with ("dokuwiki"), or "none"
 *   lastrun    what the last snapshot (or watch's full crawl) did (lastrun.h)
 *   depstate   the dependencies are complete, since when, recorded how (depstate.h)
 *   written    what a traced snapshot's renders wrote (depstate.h)
 *   404.html   the site's "not found" page, when one was seen
 *   lock       held (flock) by the snapshot or watch writing the tree
 *   control    the socket of the running watch ('cgisnap notify'; watch/control.h)
 *
 * No server may ever serve anything under .cgisnap/.
 */
#ifndef CGISNAP_TREE_H
#define CGISNAP_TREE_H

#include <stdbool.h>

#include "url/url.h"

#define TREE_META_DIR ".cgisnap"

struct manifest_db;

struct tree {
	char *path;    /* as the user gave it */
	int fd;        /* the tree root (O_DIRECTORY) */
	int meta_fd;   /* descriptor of .cgisnap/ */
	int lock_fd;   /* -1 unless tree_lock() succeeded */
	struct manifest_db *db; /* manifest.h's open database, NULL until used */
};

/* Open (create = true: create it and .cgisnap/ when missing) the tree at
 * path. -1 with err ("cannot open tree 'x': ...") on failure. */
int tree_open(struct tree *t, const char *path, bool create, char *err);

/* Open the tree at path for writing it, creating it when missing. A
 * tree is claimed explicitly: path must be missing, empty or already a
 * cgisnap tree (.cgisnap/ in it); any other directory is refused ("'x' is
 * not empty and not a cgisnap tree (use --force to adopt it)") unless
 * force. Adopting creates .cgisnap/ and nothing else: the files already
 * there stay the user's (never overwritten nor pruned, as the manifest
 * does not record them). -1 with err. */
int tree_claim(struct tree *t, const char *path, bool force, char *err);

/* The absolute path path names, symbolic links resolved, even when it
 * does not exist yet: its nearest existing ancestor is resolved and the
 * rest appended by name. NULL when not even that resolves. Caller frees. */
char *tree_real_path(const char *path);

/* -1 with err when the tree at path and the directory root (the site's
 * document root) are the same or one is inside the other. */
int tree_check_apart(const char *path, const char *root, char *err);
/* The same for another directory of the site, named by what ("the
 * --path-alias directory"), or a file of it (a program). */
int tree_check_apart_named(const char *path, const char *root, const char *what, char *err);

/* tree_lock()'s answer when another cgisnap holds the lock: a state that
 * passes (the caller exits EXIT_BUSY), not an error of the set-up. */
#define TREE_BUSY (-2)

/* Take the writer's lock without waiting; TREE_BUSY with err "tree 'x' is
 * locked by another cgisnap (pid N)" when a snapshot, watch or serve --fill
 * already holds it; -1 with err on any other failure. */
int tree_lock(struct tree *t, char *err);

/* Write the site's settings (atomically) / read them into s (site_init is
 * called with the recorded site-url). A tree without settings leaves s
 * untouched and returns 0. */
int tree_save_settings(struct tree *t, const struct site *s, char *err);
int tree_load_settings(struct tree *t, struct site *s, char *err);

/* Record the site profile in use (NULL: none), atomically. */
int tree_save_profile(struct tree *t, const char *name, char *err);
/* The recorded profile's name ("none" included; fresh), or NULL with
 * *err empty when the tree records none, or with err on a read error. */
char *tree_load_profile(struct tree *t, char *err);

void tree_close(struct tree *t);

#endif
