/* helpers.h - what several unit tests need around the code under test:
 * a scratch directory, its removal, and the config tests' tree entries.
 *
 *     char *dir = unit_temp_dir("exec");   // /tmp/cgisnap-unit-exec.XXXXXX
 *     ...
 *     unit_remove_tree(dir);
 *     free(dir);
 */
#ifndef CGISNAP_UNIT_HELPERS_H
#define CGISNAP_UNIT_HELPERS_H

struct tree;
struct treeinfo;

/* A fresh directory under $TMPDIR (or /tmp) named after tag, as a real
 * path (inotify and the tracer report real paths: /tmp may be a link);
 * the caller frees it. NULL when it cannot be made. */
char *unit_temp_dir(const char *tag);

/* Remove path and everything under it, never following a link; a path
 * still there afterwards fails the running test. */
void unit_remove_tree(const char *path);

/* A fresh scratch directory (unit_temp_dir(tag)) with a tree created and
 * opened in t at dir/sub (sub NULL: the directory itself); a failure fails
 * the running test. Returns the directory, for unit_remove_tree; the
 * caller frees it. */
char *unit_tree_open(struct tree *t, const char *tag, const char *sub);

/* Write text to dir/name (created or emptied first). */
void unit_put(const char *dir, const char *name, const char *text);

/* Make the directory dir/name. */
void unit_make_dir(const char *dir, const char *name);

/* Add a manifest entry to ti as the snapshot would have recorded it; key,
 * type and location may be NULL. */
void unit_treeinfo_add(struct treeinfo *ti, const char *target, int status, const char *key, const char *type,
		       const char *location);

#endif
