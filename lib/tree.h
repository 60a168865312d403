/* tree.h - a snapshot tree on disk: its directory, its lock and its
 * settings. Everything cgisnap keeps for itself lives in DIR/.cgisnap/:
 *
 *   manifest   one line per URL (manifest.h)
 *   deps       what each page's render read (manifest.h)
 *   settings   "name = value" lines: the site and query policy the tree
 *              was made with (site-url, alias, ignore-param, sort-query), so
 *              that serve and config canonicalise requests the same way
 *   404.html   the site's "not found" page, when one was seen
 *   lock       held (flock) by the snapshot or watch writing the tree
 *
 * No server may ever serve anything under .cgisnap/.
 */
#ifndef CGISNAP_TREE_H
#define CGISNAP_TREE_H

#include <stdbool.h>

#include "url.h"

#define TREE_META_DIR ".cgisnap"

struct tree {
	char *path;    /* as the user gave it */
	int fd;        /* the tree root (O_DIRECTORY) */
	int meta_fd;   /* descriptor of .cgisnap/ */
	int lock_fd;   /* -1 unless tree_lock() succeeded */
};

/* Open (create = true: create it and .cgisnap/ when missing) the tree at
 * path. -1 with err ("cannot open tree 'x': ...") on failure. */
int tree_open(struct tree *t, const char *path, bool create, char *err);

/* Take the writer's lock without waiting; -1 with err "tree 'x' is locked
 * by another cgisnap (pid N)" when a snapshot or watch already holds it. */
int tree_lock(struct tree *t, char *err);

/* Write the site's settings (atomically) / read them into s (site_init is
 * called with the recorded site-url). A tree without settings leaves s
 * untouched and returns 0. */
int tree_save_settings(struct tree *t, const struct site *s, char *err);
int tree_load_settings(struct tree *t, struct site *s, char *err);

void tree_close(struct tree *t);

#endif
